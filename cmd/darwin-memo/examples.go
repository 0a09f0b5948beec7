package main

// examples are printed under each command's usage (darwin-memo CMD -h, darwin-memo help CMD),
// after its flags, the way actionlint prints its own: real invocations to copy.
var examples = map[string][]string{
	"decide": {
		`darwin-memo decide "how do I run the integration tests"`,
		`darwin-memo decide --store path/to/lessons.json "which logger does the payments service use"`,
	},
	"query": {
		`darwin-memo query "flaky tests"`,
		`darwin-memo query --json --top 3 "database migrations"`,
	},
	"add": {
		`darwin-memo add "How do I run the integration tests?" "Run make itest with DOCKER_HOST unset."`,
		`darwin-memo add --kind inferred --source pr#12 "Which logger?" "zap, from internal/log."`,
	},
	"settle": {
		`darwin-memo settle a899bb29d181 2                  # one compat ticket, CI delta +2`,
		`darwin-memo settle --body pr.md --base base.json --source ci --repository acme/widgets --run pr#42 1`,
		`gh pr view 42 --json body -q .body | darwin-memo settle --body - -- -1`,
	},
	"abandon":  {`darwin-memo abandon a899bb29d181`},
	"tick":     {`darwin-memo tick`, `darwin-memo tick --count 5`},
	"stats":    {`darwin-memo stats`, `darwin-memo stats --json`},
	"top":      {`darwin-memo top -n 20`},
	"why":      {`darwin-memo why 053a99cf0a4c`},
	"obituary": {`darwin-memo obituary 053a99cf0a4c`},
	"forget":   {`darwin-memo forget 053a99cf0a4c`},
	"pin":      {`darwin-memo pin 053a99cf0a4c`},
	"unpin":    {`darwin-memo unpin 053a99cf0a4c`},
	"import":   {`darwin-memo import --probation 5 ../other-repo/.darwin-memo/lessons.json`},
	"render": {
		`darwin-memo render                 # LESSONS.md next to the store`,
		`darwin-memo render -o - --budget 8kb`,
	},
	"doctor":  {`darwin-memo doctor`, `darwin-memo doctor --json`},
	"mcp":     {`darwin-memo mcp`, `claude mcp add darwin-memo -- darwin-memo mcp`},
	"version": {`darwin-memo version`},
	"demo":    {`darwin-memo demo`, `darwin-memo demo -rounds 12 -show-pr`},
}
