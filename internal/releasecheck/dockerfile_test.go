package releasecheck

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/darwin-memo/darwin-memo-action/internal/version"
)

// instruction is one Dockerfile instruction with its continuation lines joined.
type instruction struct {
	line int
	cmd  string // upper-case: FROM, RUN, ARG, ...
	args string
}

// stage is one FROM and the instructions after it.
type stage struct {
	from  instruction
	instr []instruction
}

var reDirective = regexp.MustCompile(`(?i)^#\s*([a-z]+)\s*=`)

// parseDockerfile splits a Dockerfile into its parser directives (the # key=value lines before
// anything else) and its stages.
func parseDockerfile(src string) (directives []string, stages []stage, err error) {
	lines := strings.Split(src, "\n")
	inHeader := true
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if inHeader {
			if m := reDirective.FindStringSubmatch(l); m != nil {
				directives = append(directives, strings.ToLower(m[1]))
				continue
			}
			inHeader = false
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		start := i
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			next := strings.TrimSpace(lines[i])
			if strings.HasPrefix(next, "#") {
				continue
			}
			l = strings.TrimSpace(strings.TrimSuffix(l, `\`)) + " " + next
		}
		cmd, args, _ := strings.Cut(l, " ")
		in := instruction{line: start + 1, cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			stages = append(stages, stage{from: in})
			continue
		}
		if len(stages) == 0 {
			if in.cmd == "ARG" {
				continue // global ARG before the first FROM
			}
			return nil, nil, fmt.Errorf("line %d: %s before the first FROM", in.line, in.cmd)
		}
		stages[len(stages)-1].instr = append(stages[len(stages)-1].instr, in)
	}
	if len(stages) == 0 {
		return nil, nil, fmt.Errorf("no FROM")
	}
	return directives, stages, nil
}

// args returns the ARG names a stage declares and whether each has a default value.
func (s stage) args() map[string]bool {
	out := map[string]bool{}
	for _, in := range s.instr {
		if in.cmd != "ARG" {
			continue
		}
		for _, a := range strings.Fields(in.args) {
			name, _, hasDefault := strings.Cut(a, "=")
			out[name] = hasDefault
		}
	}
	return out
}

var reBuildPlatform = regexp.MustCompile(`--platform=\$(BUILDPLATFORM|\{BUILDPLATFORM(:-[a-z]+)?\})(\s|$)`)

// The release builds linux/amd64 and linux/arm64 on an x64 runner without QEMU, and the runner
// builds the action's image on every run: no syntax directive, and every stage that runs
// commands runs natively and cross-compiles.
func TestDockerfileCrossCompilesWithoutFrontend(t *testing.T) {
	const file = "Dockerfile"
	src := readFile(t, file)
	directives, stages, err := parseDockerfile(src)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if slices.Contains(directives, "syntax") {
		t.Errorf("%s: a # syntax= directive makes every action run pull a BuildKit frontend image from Docker Hub; drop it", file)
	}
	built := false
	for _, st := range stages {
		var runs []instruction
		for _, in := range st.instr {
			if in.cmd == "RUN" {
				runs = append(runs, in)
			}
		}
		if len(runs) > 0 && !reBuildPlatform.MatchString(st.from.args) {
			t.Errorf("%s:%d: FROM %s has RUN steps but no --platform=$BUILDPLATFORM: the linux/arm64 build would need emulation", file, st.from.line, st.from.args)
		}
		for _, run := range runs {
			if !strings.Contains(run.args, "go build") {
				continue
			}
			built = true
			for name, goenv := range map[string]string{"TARGETOS": "GOOS", "TARGETARCH": "GOARCH"} {
				hasDefault, declared := st.args()[name]
				if !declared {
					t.Errorf("%s:%d: the build stage does not declare ARG %s", file, st.from.line, name)
				} else if hasDefault {
					t.Errorf("%s: ARG %s has a default, which overrides the platform BuildKit sets", file, name)
				}
				if !regexp.MustCompile(goenv + `=\$\{?` + name + `[}:]?`).MatchString(run.args) {
					t.Errorf("%s:%d: go build without %s=$%s", file, run.line, goenv, name)
				}
			}
			checkVersionVars(t, file, run.args)
			for _, arg := range []string{"VERSION", "COMMIT"} {
				if _, ok := st.args()[arg]; !ok {
					t.Errorf("%s: the build stage does not declare ARG %s (the release workflow passes it)", file, arg)
				}
			}
		}
	}
	if !built {
		t.Errorf("%s: no RUN ... go build", file)
	}
}

func TestParseDockerfile(t *testing.T) {
	src := "# syntax=docker/dockerfile:1\n# escape=\\\n\n# a comment\nARG GO=1.26\nFROM --platform=$BUILDPLATFORM golang:$GO AS build\nARG TARGETOS TARGETARCH=amd64\nRUN go build \\\n  # a comment inside\n  -o /x .\nFROM scratch\nCOPY --from=build /x /x\n"
	dirs, stages, err := parseDockerfile(src)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(dirs, ",") != "syntax,escape" {
		t.Errorf("directives = %q", dirs)
	}
	if len(stages) != 2 || len(stages[0].instr) != 2 || stages[0].instr[1].args != "go build -o /x ." {
		t.Fatalf("stages = %+v", stages)
	}
	if a := stages[0].args(); a["TARGETOS"] || !a["TARGETARCH"] {
		t.Errorf("args = %v", a)
	}
	if !reBuildPlatform.MatchString(stages[0].from.args) || !reBuildPlatform.MatchString("--platform=${BUILDPLATFORM:-linux} golang") || reBuildPlatform.MatchString("--platform=linux/amd64 golang") {
		t.Error("reBuildPlatform")
	}
	if _, _, err := parseDockerfile("# just a comment\n"); err == nil {
		t.Error("parseDockerfile accepted a file without FROM")
	}
}

var reLinkerX = regexp.MustCompile(`-X[ =]?(\S+?)\.(\w+)=`)

// checkVersionVars checks that the -X flags in text set internal/version.Version and .Commit:
// -X with a wrong path or variable is silently ignored by the linker.
func checkVersionVars(t *testing.T, file, text string) {
	t.Helper()
	pkg := reflect.TypeOf(version.Info{}).PkgPath()
	set := map[string]bool{}
	for _, m := range reLinkerX.FindAllStringSubmatch(text, -1) {
		if m[1] != pkg {
			t.Errorf("%s: -X %s.%s names a package other than %s", file, m[1], m[2], pkg)
			continue
		}
		set[m[2]] = true
	}
	for _, v := range []string{"Version", "Commit"} {
		if !set[v] {
			t.Errorf("%s: no -X %s.%s=... in the go build flags", file, pkg, v)
		}
	}
	for v := range set {
		if v != "Version" && v != "Commit" {
			t.Errorf("%s: -X %s.%s: internal/version has Version and Commit only", file, pkg, v)
		}
	}
}

// platformArgs are the ARGs BuildKit sets by itself; the classic builder sets none of them.
var platformArgs = []string{"BUILDPLATFORM", "BUILDOS", "BUILDARCH", "BUILDVARIANT", "TARGETPLATFORM", "TARGETOS", "TARGETARCH", "TARGETVARIANT"}

var reVar = regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-+])([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*))`)

// expand substitutes $NAME, ${NAME}, ${NAME:-word}, ${NAME-word}, ${NAME:+word} and
// ${NAME+word} the way the Dockerfile's shell lexer does for an ARG that is set (in env) or not.
func expand(s string, env map[string]string) string {
	return reVar.ReplaceAllStringFunc(s, func(m string) string {
		g := reVar.FindStringSubmatch(m)
		name, op, word := g[1], g[2], g[3]
		if name == "" {
			name = g[4]
		}
		v, set := env[name]
		switch op {
		case ":-":
			if v == "" {
				return word
			}
		case "-":
			if !set {
				return word
			}
		case ":+":
			if v != "" {
				return word
			}
			return ""
		case "+":
			if set {
				return word
			}
			return ""
		}
		return v
	})
}

// globalArgs returns the ARGs declared before the first FROM with their defaults (the only
// variables a FROM line may use besides BuildKit's platform ARGs).
func globalArgs(src string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(src, "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if strings.EqualFold(f[0], "FROM") {
			break
		}
		if strings.EqualFold(f[0], "ARG") {
			for _, a := range f[1:] {
				name, def, _ := strings.Cut(a, "=")
				out[name] = strings.Trim(def, `"`)
			}
		}
	}
	return out
}

var rePlatformFlag = regexp.MustCompile(`--platform=(\S*)`)

// Self-hosted runners and GHES may build the action's image with the classic builder
// (DOCKER_BUILDKIT=0, older engines), which sets no $BUILDPLATFORM: "FROM --platform=" with an
// empty value fails there ("failed to parse platform"). Every FROM must expand, with the
// platform ARGs unset, to a platform the classic builder parses and that means the machine's own
// ("linux": containerd fills in the daemon's architecture), and, with BuildKit's values, to
// $BUILDPLATFORM as before.
func TestDockerfileBuildsWithoutBuildKit(t *testing.T) {
	const file = "Dockerfile"
	src := readFile(t, file)
	_, stages, err := parseDockerfile(src)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, p := range classicProblems(file, src, stages) {
		t.Error(p)
	}
}

func classicProblems(file, src string, stages []stage) []string {
	var problems []string
	classic := globalArgs(src)
	for _, a := range platformArgs {
		if _, declared := classic[a]; declared && classic[a] != "" {
			problems = append(problems, fmt.Sprintf("%s: global ARG %s=%s overrides the platform BuildKit sets", file, a, classic[a]))
		}
	}
	buildkit := map[string]string{}
	for k, v := range classic {
		buildkit[k] = v
	}
	for k, v := range map[string]string{"BUILDPLATFORM": "linux/arm64", "BUILDOS": "linux", "BUILDARCH": "arm64", "TARGETPLATFORM": "linux/amd64", "TARGETOS": "linux", "TARGETARCH": "amd64"} {
		buildkit[k] = v
	}
	for _, st := range stages {
		from := st.from.args
		for _, m := range reVar.FindAllStringSubmatch(from, -1) {
			name := m[1] + m[4]
			if _, global := classic[name]; !global && !slices.Contains(platformArgs, name) {
				problems = append(problems, fmt.Sprintf("%s:%d: FROM uses $%s, which is neither a global ARG nor a platform ARG: it is empty there", file, st.from.line, name))
			}
		}
		c := expand(from, classic)
		if strings.Contains(c, "$") {
			problems = append(problems, fmt.Sprintf("%s:%d: FROM %s expands to %q: a substitution this check does not model", file, st.from.line, from, c))
			continue
		}
		if m := rePlatformFlag.FindStringSubmatch(c); m != nil && !regexp.MustCompile(`^linux(/[a-z0-9]+(/v[0-9]+)?)?$`).MatchString(m[1]) {
			problems = append(problems, fmt.Sprintf("%s:%d: without BuildKit FROM %s becomes %q: --platform=%q does not parse (give the ARG a default, e.g. ${BUILDPLATFORM:-linux})", file, st.from.line, from, c, m[1]))
		} else if m != nil && strings.Contains(m[1], "/") {
			problems = append(problems, fmt.Sprintf("%s:%d: without BuildKit FROM %s becomes %q: a fixed architecture, so a runner of another one would build under emulation or fail; use linux (the daemon's own)", file, st.from.line, from, c))
		}
		if image := strings.Fields(rePlatformFlag.ReplaceAllString(c, "")); len(image) == 0 || image[0] == "" {
			problems = append(problems, fmt.Sprintf("%s:%d: without BuildKit FROM %s names no image", file, st.from.line, from))
		}
		if m := rePlatformFlag.FindStringSubmatch(expand(from, buildkit)); m != nil && reBuildPlatform.MatchString(from) && m[1] != buildkit["BUILDPLATFORM"] {
			problems = append(problems, fmt.Sprintf("%s:%d: with BuildKit FROM %s runs on %q, want $BUILDPLATFORM (%s)", file, st.from.line, from, m[1], buildkit["BUILDPLATFORM"]))
		}
	}
	return problems
}

// classicProblems finds the forms that fail or misbuild without BuildKit.
func TestCheckClassicModel(t *testing.T) {
	for _, tc := range []struct {
		src  string
		fail bool
	}{
		{"FROM --platform=${BUILDPLATFORM:-linux} golang:1.26 AS build\nFROM scratch\n", false},
		{"ARG GO=1.26\nFROM --platform=${BUILDPLATFORM:-linux} golang:$GO AS build\n", false},
		{"FROM --platform=$BUILDPLATFORM golang:1.26 AS build\n", true},           // empty --platform
		{"FROM --platform=${BUILDPLATFORM:-linux/amd64} golang AS build\n", true}, // arm64 runners
		{"ARG BUILDPLATFORM=linux/amd64\nFROM --platform=$BUILDPLATFORM golang\n", true},
		{"FROM golang:$GO\n", true}, // $GO is not a global ARG
	} {
		_, stages, err := parseDockerfile(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := classicProblems("Dockerfile", tc.src, stages); (len(got) > 0) != tc.fail {
			t.Errorf("%q: problems %q, want some: %v", tc.src, got, tc.fail)
		}
	}
	if got := expand("a${X:-d}b${Y:-d}c$X${Z-e}", map[string]string{"X": "x", "Y": ""}); got != "axbdcxe" {
		t.Errorf("expand = %q", got)
	}
}
