package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"
)

// UsageError is a command line hyscribe does not understand: an unknown
// command, subcommand or flag. main exits 2 on it, as command-line tools do.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// ExitCode is the process's exit status for Run's error: 0, 2 for a usage
// error, 1 for any other failure.
func ExitCode(err error) int {
	var ue *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return 2
	}
	return 1
}

// parseFlags parses a command's flags; a mistake is a UsageError (Run
// prints the command's help for it).
func parseFlags(fs *flag.FlagSet, args []string) error {
	fs.Usage = func() {}
	if err := fs.Parse(args); err != nil {
		return &UsageError{Err: fmt.Errorf("%s: %w", fs.Name(), err)}
	}
	if fs.NArg() > 0 {
		return usageErrorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// wantsHelp reports whether args ask for help (-h, --help, -help) before a
// "--" that would end the flags.
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-h" || a == "--help" || a == "-help" {
			return true
		}
	}
	return false
}

// commandHelp is the part of the usage that describes the command named
// (e.g. "checklist" or "checklist create"): its lines and their
// continuation lines. An unknown name gets the whole usage.
func commandHelp(name string) string {
	lines := strings.Split(usage, "\n")
	var out []string
	in := false
	for _, l := range lines {
		trimmed := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "  hyscribe "):
			in = trimmed == "hyscribe "+name || strings.HasPrefix(trimmed, "hyscribe "+name+" ")
			if in {
				out = append(out, l)
			}
		case in && strings.HasPrefix(l, "   ") && trimmed != "":
			out = append(out, l)
		default:
			in = false
		}
	}
	if len(out) == 0 {
		return usage
	}
	return "usage:\n" + strings.Join(out, "\n") + "\n\nConfiguration comes from the environment; see the README.\n"
}

// knownCommands are the first words Run accepts.
var knownCommands = []string{"serve", "api", "worker", "kafka", "account", "transcribe", "checklist", "user", "migrate", "report", "job", "help", "version", "probe"}

// helpFor is the help for args (whose first word is a known command): that
// of the command and, when one is given, its subcommand.
func helpFor(args []string) string {
	name := args[0]
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		if h := commandHelp(name + " " + args[1]); h != usage {
			name += " " + args[1]
		}
	}
	return commandHelp(name)
}

// noArgs refuses arguments to a command that takes none.
func noArgs(cmd string, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return usageErrorf("%s takes no arguments, got %q", cmd, args[0])
}

// BuildInfo says which build of hyscribe is running.
type BuildInfo struct {
	Version   string // the module version, or "(devel)" for a build from a work tree
	Commit    string // the VCS revision, "unknown" when the build did not record it
	Modified  bool   // built from a work tree with uncommitted changes
	GoVersion string
}

// version and commit may be set at link time (-ldflags "-X
// github.com/hyscribe/hyscribe/cmd/hyscribe/cli.version=v1.2.3"), for
// builds without the repository's .git (the Dockerfile's); otherwise the
// build info the Go toolchain recorded is used.
var version, commit string

// ReadBuildInfo reads what the Go toolchain recorded in the binary, and
// what the link step set.
func ReadBuildInfo() (bi BuildInfo) {
	bi = BuildInfo{Version: "(devel)", Commit: "unknown", GoVersion: "unknown"}
	defer func() {
		if version != "" {
			bi.Version = version
		}
		if commit != "" {
			bi.Commit = commit
		}
	}()
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return bi
	}
	bi.GoVersion = info.GoVersion
	if v := info.Main.Version; v != "" {
		bi.Version = v
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			bi.Commit = s.Value
		case "vcs.modified":
			bi.Modified = s.Value == "true"
		}
	}
	return bi
}

func versionCmd(stdout io.Writer) error {
	bi := ReadBuildInfo()
	commit := bi.Commit
	if bi.Modified {
		commit += " (modified)"
	}
	_, err := fmt.Fprintf(stdout, "hyscribe %s\ncommit: %s\ngo: %s\n", bi.Version, commit, bi.GoVersion)
	return err
}

func isKnownCommand(name string) bool { return slices.Contains(knownCommands, name) }

// subcommandError is the usage error of a missing or unknown subcommand:
// it names what was given and what is accepted.
func subcommandError(cmd string, args []string, choices ...string) error {
	want := strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
	if len(choices) == 1 {
		want = choices[0]
	}
	if len(args) == 0 {
		return usageErrorf("%s: expected %s", cmd, want)
	}
	return usageErrorf("%s: unknown subcommand %q; expected %s", cmd, args[0], want)
}

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
