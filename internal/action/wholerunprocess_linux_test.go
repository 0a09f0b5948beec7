//go:build linux

package action

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// init makes the test binary the launcher of TestWholeRunProcess when launchEnvBin names the
// binary to run: it runs `BIN action` with its own environment (the launcher's variables
// removed), writes the child's usage as JSON to the file launchEnvUsage names, and exits
// before the test framework starts.
//
// The launcher exists because Linux reports a child's peak RSS (wait4's ru_maxrss) as at
// least the RSS of the process that exec'd it: exec raises the new image's high-water mark to
// the old one's (fs/exec.c, exec_mmap), and os/exec's vfork runs the exec on the parent's
// memory. Exec'd from the test process, which holds the fake's repository (hundreds of MB at
// 10k lessons), the action would report the test process's RSS. The launcher is a fresh
// process (its own memory: the packages' initialisation), so the floor it leaves is a few MB
// (reported as LauncherRSSKiB).
func init() {
	bin := os.Getenv(launchEnvBin)
	if bin == "" {
		return
	}
	os.Exit(launch(bin, os.Getenv(launchEnvUsage)))
}

// launch runs one child and records its usage; it returns the launcher's exit code (0 when
// the child ran, whatever its exit code, which the usage file carries).
func launch(bin, usagePath string) int {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, launchEnvBin+"=") || strings.HasPrefix(kv, launchEnvUsage+"=")
	})
	cmd := exec.Command(bin, "action")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0)
	if cmd.ProcessState == nil {
		fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
		return 125
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintln(os.Stderr, "launcher: no rusage")
		return 125
	}
	b, _ := json.Marshal(processUsage{
		Exit: cmd.ProcessState.ExitCode(), Wall: wall,
		User: time.Duration(ru.Utime.Nano()), System: time.Duration(ru.Stime.Nano()),
		MaxRSSKiB: ru.Maxrss, LauncherRSSKiB: launcherHWM(),
	})
	if err := os.WriteFile(usagePath, b, 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "launcher: %v\n", err)
		return 125
	}
	return 0
}

// launcherHWM is the launcher's own peak RSS in KiB: its memory's high-water mark (VmHWM),
// what exec hands on to the child. Not RUSAGE_SELF: the launcher's ru_maxrss carries the test
// process's RSS, handed on when the launcher was exec'd from it.
func launcherHWM() int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
