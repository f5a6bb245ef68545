package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// probeTimeout bounds one probe, below compose's healthcheck timeout.
const probeTimeout = 3 * time.Second

// probeCmd GETs one URL and succeeds on 200: the healthcheck of a
// container without curl (the image has none).
func probeCmd(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) != 1 {
		return usageErrorf("probe: expected one URL")
	}
	u, err := url.Parse(args[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageErrorf("probe: %q is not an http(s) URL", args[0])
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("probe %s: %w", u, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 4<<10))
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("probe %s: %s %s", u, res.Status, body)
	}
	_, err = fmt.Fprintf(stdout, "%s\n", body)
	return err
}
