package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The tests mount real tmpfs file systems, as the driver does on the node:
// they run as root, as the local cluster does.

const mib = 1 << 20

func newDriver(t *testing.T) *driver {
	t.Helper()
	dir := t.TempDir()
	d := &driver{name: "test", nodeID: "node", maxSize: 8 * mib,
		store: store{volumes: filepath.Join(dir, "volumes"), snapshots: filepath.Join(dir, "snapshots")}}
	t.Cleanup(func() {
		for _, id := range []string{"a", "b", "c"} {
			if err := d.store.deleteVolume(id); err != nil {
				t.Error(err)
			}
		}
	})
	return d
}

func mountCapability() []*csi.VolumeCapability {
	return []*csi.VolumeCapability{{AccessType: &csi.VolumeCapability_Mount{Mount: &csi.VolumeCapability_MountVolume{}}}}
}

func createVolume(t *testing.T, d *driver, name string, size int64, fromSnapshot string) (*csi.CreateVolumeResponse, error) {
	t.Helper()
	req := &csi.CreateVolumeRequest{Name: name, CapacityRange: &csi.CapacityRange{RequiredBytes: size}, VolumeCapabilities: mountCapability()}
	if fromSnapshot != "" {
		req.VolumeContentSource = &csi.VolumeContentSource{Type: &csi.VolumeContentSource_Snapshot{
			Snapshot: &csi.VolumeContentSource_SnapshotSource{SnapshotId: fromSnapshot}}}
	}
	return d.CreateVolume(context.Background(), req)
}

// must is v, failing t on err: must(call())(t).
func must[T any](v T, err error) func(*testing.T) T {
	return func(t *testing.T) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func wantCode(t *testing.T, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Fatalf("got %v, want code %v", err, code)
	}
}

func TestVolumeHasItsSize(t *testing.T) {
	d := newDriver(t)
	v := must(createVolume(t, d, "a", 2*mib, ""))(t).GetVolume()
	if v.GetCapacityBytes() != 2*mib {
		t.Fatalf("capacity %d, want %d", v.GetCapacityBytes(), 2*mib)
	}
	if got := v.GetAccessibleTopology()[0].GetSegments()[topologyKey]; got != "node" {
		t.Errorf("topology %q, want the node", got)
	}
	dir := d.store.volumeDir("a")
	if err := os.WriteFile(filepath.Join(dir, "fits"), make([]byte, mib), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "too-much"), make([]byte, 2*mib), 0o644); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("writing past the size: %v, want ENOSPC", err)
	}
	// Asked again, the same volume; asked from a snapshot, a conflict.
	again := must(createVolume(t, d, "a", 2*mib, ""))(t).GetVolume()
	if again.GetCapacityBytes() != 2*mib {
		t.Errorf("capacity asked again %d", again.GetCapacityBytes())
	}
}

func TestSizeFor(t *testing.T) {
	d := &driver{maxSize: 8 * mib}
	for _, tc := range []struct {
		name     string
		r        *csi.CapacityRange
		want     int64
		wantCode codes.Code
	}{
		{name: "none asked", want: 8 * mib},
		{name: "required", r: &csi.CapacityRange{RequiredBytes: mib}, want: mib},
		{name: "limit only", r: &csi.CapacityRange{LimitBytes: 2 * mib}, want: 2 * mib},
		{name: "limit below required", r: &csi.CapacityRange{RequiredBytes: 2 * mib, LimitBytes: mib}, wantCode: codes.OutOfRange},
		{name: "past the bound", r: &csi.CapacityRange{RequiredBytes: 9 * mib}, wantCode: codes.OutOfRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := d.sizeFor(tc.r)
			if status.Code(err) != tc.wantCode || got != tc.want {
				t.Errorf("got %d, %v; want %d, code %v", got, err, tc.want, tc.wantCode)
			}
		})
	}
}

func TestSnapshotAndRestore(t *testing.T) {
	d := newDriver(t)
	must(createVolume(t, d, "a", 2*mib, ""))(t)
	dir := d.store.volumeDir("a")
	first := filepath.Join(dir, "data", "first")
	if err := os.MkdirAll(filepath.Dir(first), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(first, []byte("before"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(first, 1000, 2000); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("data/first", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	snap := must(d.CreateSnapshot(context.Background(), &csi.CreateSnapshotRequest{Name: "s", SourceVolumeId: "a"}))(t).GetSnapshot()
	if !snap.GetReadyToUse() || snap.GetSizeBytes() != 2*mib || snap.GetSourceVolumeId() != "a" {
		t.Fatalf("snapshot %v", snap)
	}
	if err := os.WriteFile(filepath.Join(dir, "data", "second"), []byte("after"), 0o644); err != nil {
		t.Fatal(err)
	}

	_, err := createVolume(t, d, "b", mib, "s")
	wantCode(t, err, codes.OutOfRange)
	_, err = createVolume(t, d, "b", 2*mib, "missing")
	wantCode(t, err, codes.NotFound)
	must(createVolume(t, d, "b", 4*mib, "s"))(t)
	restored := d.store.volumeDir("b")
	got, err := os.ReadFile(filepath.Join(restored, "link"))
	if err != nil || string(got) != "before" {
		t.Fatalf("the first file through its link: %q, %v", got, err)
	}
	info := must(os.Stat(filepath.Join(restored, "data", "first")))(t)
	st := info.Sys().(*syscall.Stat_t)
	if info.Mode().Perm() != 0o640 || st.Uid != 1000 || st.Gid != 2000 {
		t.Errorf("the first file's mode %v and owner %d:%d, want -rw-r----- 1000:2000", info.Mode(), st.Uid, st.Gid)
	}
	if _, err := os.Stat(filepath.Join(restored, "data", "second")); !os.IsNotExist(err) {
		t.Errorf("the file written after the snapshot is in the restored volume: %v", err)
	}
	_, err = createVolume(t, d, "a", 2*mib, "s")
	wantCode(t, err, codes.AlreadyExists)

	must(d.DeleteSnapshot(context.Background(), &csi.DeleteSnapshotRequest{SnapshotId: "s"}))(t)
	must(d.DeleteSnapshot(context.Background(), &csi.DeleteSnapshotRequest{SnapshotId: "s"}))(t)
	_, err = createVolume(t, d, "c", 2*mib, "s")
	wantCode(t, err, codes.NotFound)
}

func TestExpandWhilePublished(t *testing.T) {
	d := newDriver(t)
	must(createVolume(t, d, "a", mib, ""))(t)
	target := filepath.Join(t.TempDir(), "pod", "mount")
	publish := &csi.NodePublishVolumeRequest{VolumeId: "a", TargetPath: target, VolumeCapability: mountCapability()[0]}
	must(d.NodePublishVolume(context.Background(), publish))(t)
	must(d.NodePublishVolume(context.Background(), publish))(t)
	if err := os.WriteFile(filepath.Join(target, "data"), make([]byte, mib/2), 0o644); err != nil {
		t.Fatal(err)
	}

	resp := must(d.ControllerExpandVolume(context.Background(), &csi.ControllerExpandVolumeRequest{
		VolumeId: "a", CapacityRange: &csi.CapacityRange{RequiredBytes: 3 * mib}}))(t)
	if resp.GetCapacityBytes() != 3*mib || resp.GetNodeExpansionRequired() {
		t.Fatalf("expanded: %v", resp)
	}
	stats := must(d.NodeGetVolumeStats(context.Background(), &csi.NodeGetVolumeStatsRequest{VolumeId: "a", VolumePath: target}))(t)
	bytes := stats.GetUsage()[0]
	if bytes.GetTotal() != 3*mib || bytes.GetUsed() != mib/2 {
		t.Errorf("the pod's view: %d bytes of which %d used, want %d and %d", bytes.GetTotal(), bytes.GetUsed(), 3*mib, mib/2)
	}

	must(d.NodeUnpublishVolume(context.Background(), &csi.NodeUnpublishVolumeRequest{VolumeId: "a", TargetPath: target}))(t)
	must(d.NodeUnpublishVolume(context.Background(), &csi.NodeUnpublishVolumeRequest{VolumeId: "a", TargetPath: target}))(t)
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the target after unpublishing: %v", err)
	}
	_, err := d.NodeGetVolumeStats(context.Background(), &csi.NodeGetVolumeStatsRequest{VolumeId: "a", VolumePath: target})
	wantCode(t, err, codes.NotFound)
}

func TestDeleteVolume(t *testing.T) {
	d := newDriver(t)
	must(createVolume(t, d, "a", mib, ""))(t)
	for range 2 {
		must(d.DeleteVolume(context.Background(), &csi.DeleteVolumeRequest{VolumeId: "a"}))(t)
	}
	if mounted, err := isMountPoint(d.store.volumeDir("a")); err != nil || mounted {
		t.Errorf("mounted after delete: %v, %v", mounted, err)
	}
	_, err := d.ControllerExpandVolume(context.Background(), &csi.ControllerExpandVolumeRequest{
		VolumeId: "a", CapacityRange: &csi.CapacityRange{RequiredBytes: 2 * mib}})
	wantCode(t, err, codes.NotFound)
}
