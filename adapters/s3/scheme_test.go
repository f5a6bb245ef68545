package s3_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/s3"
)

// The scheme customers' upload URLs use is set apart from the one hyscribe
// uses to reach the store: plain HTTP inside, HTTPS at the public endpoint.
// Signing sends no request, so no server is needed.
func TestPublicSchemeIsItsOwn(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		secure bool
		public *bool
		want   string
	}{
		{false, &yes, "https://uploads.hyscribe.example.com/hyscribe/"},
		{true, &no, "http://uploads.hyscribe.example.com/hyscribe/"},
		{false, nil, "http://uploads.hyscribe.example.com/hyscribe/"},
		{true, nil, "https://uploads.hyscribe.example.com/hyscribe/"},
	} {
		st, err := s3.New(s3.Config{Endpoint: "minio.storage:9000", Bucket: "hyscribe", AccessKey: "a", SecretKey: "b",
			Secure: c.secure, PublicEndpoint: "uploads.hyscribe.example.com", PublicSecure: c.public})
		if err != nil {
			t.Fatal(err)
		}
		u, err := st.SignUpload(context.Background(), "doc-1", time.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(u, c.want) {
			t.Errorf("secure %v, public %v: %s, want %s…", c.secure, c.public, u, c.want)
		}
	}
}
