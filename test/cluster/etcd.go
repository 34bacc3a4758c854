package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
)

// NoSpace raises etcd's NOSPACE alarm (raise) or disarms it. Raised, etcd
// refuses every write that would grow its database and still serves reads
// and deletions, until the alarm is disarmed: what it does by itself when
// the database reaches --quota-backend-bytes, through the same alarm. An
// administrator disarms it once space is freed (compaction and
// defragmentation), as this does.
func (cl *Cluster) NoSpace(ctx context.Context, raise bool) error {
	var member struct {
		Header struct {
			MemberID string `json:"member_id"`
		} `json:"header"`
	}
	if err := cl.etcdCall(ctx, "cluster/member/list", struct{}{}, &member); err != nil {
		return err
	}
	action := "DEACTIVATE"
	if raise {
		action = "ACTIVATE"
	}
	request := map[string]string{"action": action, "memberID": member.Header.MemberID, "alarm": "NOSPACE"}
	if err := cl.etcdCall(ctx, "maintenance/alarm", request, nil); err != nil {
		return err
	}
	var alarms struct {
		Alarms []etcdAlarm `json:"alarms"`
	}
	if err := cl.etcdCall(ctx, "maintenance/alarm", map[string]string{"action": "GET"}, &alarms); err != nil {
		return err
	}
	raised := slices.ContainsFunc(alarms.Alarms, func(a etcdAlarm) bool { return a.Alarm == "NOSPACE" })
	if raised != raise {
		return fmt.Errorf("etcd's alarms after %s NOSPACE: %+v", action, alarms.Alarms)
	}
	return nil
}

// etcdAlarm is an alarm etcd reports raised.
type etcdAlarm struct {
	Alarm string `json:"alarm"`
}

// etcdCall posts request to etcd's JSON gateway of its v3 API and decodes
// the answer into answer, unless nil.
func (cl *Cluster) etcdCall(ctx context.Context, path string, request, answer any) error {
	body, err := json.Marshal(request)
	if err != nil {
		return err
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/v3/%s", cl.Ports.Etcd, path)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		var status bytes.Buffer
		_, _ = status.ReadFrom(resp.Body)
		return fmt.Errorf("etcd %s: %s: %s", path, resp.Status, status.String())
	}
	if answer == nil {
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(answer); err != nil {
		return fmt.Errorf("etcd %s: %w", path, err)
	}
	return nil
}
