// Package posixtest runs every test of go-fuse's posixtest package against a
// directory given by the POSIXTEST_DIR environment variable. The tests come
// from the imported library; this file only sets up one fresh, empty
// subdirectory per test.
package posixtest

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/hanwen/go-fuse/v2/posixtest"
)

func TestPosix(t *testing.T) {
	dir := os.Getenv("POSIXTEST_DIR")
	if dir == "" {
		t.Fatal("POSIXTEST_DIR is not set: point it at a directory on the filesystem under test")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("POSIXTEST_DIR=%q is not a directory (%v)", dir, err)
	}
	keep := os.Getenv("POSIXTEST_KEEP") != ""
	// POSIXTEST_SKIP names tests known to fail on every kernel filesystem, tmpfs included (so they say
	// nothing about the filesystem under test), e.g. FcntlFlockLocksFile: POSIX locks belong to the
	// process, so the same process locking twice succeeds.
	skip := map[string]bool{}
	for _, n := range strings.Split(os.Getenv("POSIXTEST_SKIP"), ",") {
		if n != "" {
			skip[n] = true
		}
	}

	names := make([]string, 0, len(posixtest.All))
	for name := range posixtest.All {
		names = append(names, name)
	}
	sort.Strings(names)
	// Printed so the wrapper script can tell a crashed run from a finished one.
	t.Logf("posixtest: %d tests in posixtest.All", len(names))

	for _, name := range names {
		fn := posixtest.All[name]
		t.Run(name, func(t *testing.T) {
			if skip[name] {
				t.Skip("in POSIXTEST_SKIP (the reason is beside the list in tools/test.sh)")
			}
			sub, err := os.MkdirTemp(dir, name+".")
			if err != nil {
				t.Fatalf("creating test dir: %v", err)
			}
			if err := os.Chmod(sub, 0o755); err != nil {
				t.Fatalf("chmod test dir: %v", err)
			}
			t.Cleanup(func() {
				if keep {
					t.Logf("kept test dir %s", sub)
					return
				}
				if err := os.RemoveAll(sub); err != nil {
					t.Logf("cleanup of %s: %v", sub, err)
				}
			})
			fn(t, sub)
		})
	}
}
