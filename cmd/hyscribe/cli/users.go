package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hyscribe/hyscribe/adapters/password"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// userCmd is `hyscribe user create|invite|reset-link`: operators add people
// to an account without the sign-up page, and hand out reset links.
func userCmd(ctx context.Context, cfg Config, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "reset-link" {
		return userResetLink(ctx, cfg, args[1:], stdout, stderr)
	}
	if len(args) == 0 || (args[0] != "create" && args[0] != "invite") {
		return subcommandError("user", args, "create", "invite", "reset-link")
	}
	sub := args[0]
	fs := flag.NewFlagSet("user "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	account := fs.String("account", "", "account ID")
	email := fs.String("email", "", "the person's email address")
	role := fs.String("role", string(domain.RoleMember), "owner, analyst (QA analyst) or member")
	pwFile := fs.String("password-file", "", "file whose first line is the password (create)")
	create := createStoreFlag(fs)
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *account == "" || *email == "" {
		return fmt.Errorf("user %s: --account and --email are required", sub)
	}
	store, err := openProvisioningStore(ctx, cfg, stderr, *create)
	if err != nil {
		return err
	}
	defer store.Close()
	if _, err := store.GetAccount(ctx, domain.AccountID(*account)); err != nil {
		return fmt.Errorf("user %s: account %q: %w", sub, *account, err)
	}
	clock := ports.SystemClock{}
	switch sub {
	case "create":
		if *pwFile == "" {
			return errors.New("user create: --password-file is required (a password on the command line would be in the shell's history)")
		}
		pw, err := readFirstLine(*pwFile)
		if err != nil {
			return fmt.Errorf("user create: %w", err)
		}
		u, err := app.NewCreateUser(store, password.Hasher{}, clock).Handle(ctx, domain.AccountID(*account), *email, pw, domain.Role(*role))
		if err != nil {
			return fmt.Errorf("user create: %w", err)
		}
		return writeJSON(stdout, map[string]string{"userId": u.ID, "accountId": string(u.AccountID), "email": u.Email, "role": string(u.Role)})
	default:
		u, token, err := app.NewInviteUser(store, clock).Handle(ctx, domain.AccountID(*account), *email, domain.Role(*role))
		if err != nil {
			return fmt.Errorf("user invite: %w", err)
		}
		base := cfg.PublicURL
		if base == "" {
			base = "http://" + cfg.HTTPAddr
		}
		return writeJSON(stdout, map[string]string{"userId": u.ID, "accountId": string(u.AccountID), "email": u.Email, "role": string(u.Role),
			"inviteLink": strings.TrimSuffix(base, "/") + "/app/invite/" + token, "expires": u.InviteExpiresAt.UTC().Format("2006-01-02T15:04:05Z")})
	}
}

func readFirstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close() //nolint:errcheck // opened read-only
	line, err := bufio.NewReader(io.LimitReader(f, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}
