// Command hyscribe runs the transcription service and its operator tools.
// See `hyscribe help` and the README.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := cli.Run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hyscribe:", err)
		os.Exit(cli.ExitCode(err))
	}
}
