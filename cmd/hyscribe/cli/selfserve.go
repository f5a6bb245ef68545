package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// uploadOriginOf is the origin of the signer's upload addresses when it is
// not the service's own (S3-compatible storage), for the web application's
// Content-Security-Policy: browsers PUT files there.
func uploadOriginOf(ctx context.Context, signer ports.UploadSigner, publicURL string) string {
	raw, err := signer.SignUpload(ctx, "origin-probe", time.Now().Add(time.Hour))
	if err != nil {
		return ""
	}
	u, err1 := url.Parse(raw)
	p, err2 := url.Parse(publicURL)
	if err1 != nil || err2 != nil || (u.Scheme == p.Scheme && u.Host == p.Host) {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// userResetLink is `hyscribe user reset-link --email E`: a one-time
// password reset link (valid 24 hours) for a person who lost theirs, or a
// renewed invitation for one who never accepted theirs. Their sessions end
// when the new password is set.
func userResetLink(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("user reset-link", flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "the person's email address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *email == "" {
		return fmt.Errorf("user reset-link: --email is required")
	}
	store, err := openProvisioningStore(ctx, cfg, stderr, false) // a reset link needs a person: never a new store
	if err != nil {
		return err
	}
	defer store.Close()
	clock := ports.SystemClock{}
	u, token, invited, err := app.NewResetLink(store, store, clock).Handle(ctx, "", domain.RoleOwner, *email)
	if err != nil {
		return fmt.Errorf("user reset-link: %s: %w", *email, err)
	}
	base := cfg.PublicURL
	if base == "" {
		base = "http://" + cfg.HTTPAddr
	}
	out := map[string]string{"userId": u.ID, "accountId": string(u.AccountID), "email": u.Email,
		"expires": u.InviteExpiresAt.UTC().Format("2006-01-02T15:04:05Z")}
	if invited {
		out["inviteLink"] = strings.TrimSuffix(base, "/") + web.ResetPath(token, true)
	} else {
		out["resetLink"] = strings.TrimSuffix(base, "/") + web.ResetPath(token, false)
	}
	return writeJSON(stdout, out)
}
