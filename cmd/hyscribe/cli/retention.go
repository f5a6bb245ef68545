package cli

import "flag"

// retentionFlag reports --retention-days when it was given.
func retentionFlag(fs *flag.FlagSet, days int) (int, bool) {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "retention-days" })
	return days, set
}
