package plugin

import "testing"

func TestScrub(t *testing.T) {
	const jwt = "eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQifQ.c2lnbmF0dXJlLWJ5dGVz"
	for _, tt := range []struct{ in, want string }{
		{in: "token: " + jwt + "\n", want: "token: REDACTED\n"},
		{in: `{"Authorization":"Bearer abc.def-123"}`, want: `{"Authorization":"Bearer REDACTED"}`},
		{in: "header authorization: bearer s3cr3t and more", want: "header authorization: bearer REDACTED and more"},
		{in: "E1129 leaderelection.go:42] error retrieving resource lock: Unauthorized", want: "E1129 leaderelection.go:42] error retrieving resource lock: Unauthorized"},
		{in: "image: eyJ-not-a-token", want: "image: eyJ-not-a-token"},
	} {
		if got := string(scrub([]byte(tt.in))); got != tt.want {
			t.Errorf("scrub(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
