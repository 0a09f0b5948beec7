package rank

import (
	"strings"
	"testing"
)

func TestUnstated(t *testing.T) {
	for _, c := range []struct {
		query, answer string
		asks          AnswerType
		unstated      bool
	}{
		{"which jasmine version runs the unit tests", "npm test runs jasmine in headless Chrome.", Version, true},
		{"what php version does ddev use", "PHP 8.3, set in .ddev/config.yaml.", Version, false},
		// A version is written dotted, with a v, or as a two-digit major; a
		// port or a lone digit is not one.
		{"which postgres version does CI run", "The service container listens on 5432, 2 replicas.", Version, true},
		{"what node version does CI use", "Node 20, from .nvmrc.", Version, false},
		{"which version of the action do we pin", "actions/checkout@v4 in every workflow.", Version, false},
		{"How many workers does the queue run?", "Sidekiq runs the imports queue.", Quantity, true},
		{"how long is an sms code valid", "Codes expire after 300 s.", Quantity, false},
		{"what time does the nightly run start", "It is scheduled in CI.", Quantity, true},
		{"which ports are open?", "None.", Quantity, true},
		{"what is the upload size limit", "Set in nginx.conf.", Quantity, true},
		// A quantity word that heads no "what" or "which" question asks nothing.
		{"fix the flaky timeout in the upload test", "Wrap the call in retry().", AnyAnswer, false},
		{"the version check fails on CI", "Run make tidy.", AnyAnswer, false},
		{"which module do I change to port the parser to the new API", "parser/", AnyAnswer, false},
		// Not a quantity: no numeric opening, no word naming a number.
		{"how do I run the integration tests", "make itest", AnyAnswer, false},
		{"how to import the support module", "go get ./support", AnyAnswer, false},
		{"how the long-running job retries", "It backs off.", AnyAnswer, false},
		// Who: the answer must name a person or a group.
		{"who approves prod deploys", "The prod stage waits for manual approval.", Person, true},
		{"Who approves prod deploys?", "Tag a release; Ines Ortega approves the production environment.", Person, false},
		{"who approves prod deploys", "It needs two approvals from the IAM team.", Person, false},
		{"who owns the billing service", "@acme/payments-oncall owns it; page them in #payments.", Person, false},
		{"who owns the billing service", "Ask @dana in #payments.", Person, false},
		{"who owns the billing service", "It is owned by @dana.", Person, false},
		{"whom do I ask for the token", "The on-call engineer creates one with `vault token create`.", Person, false},
		{"whose key signs the releases", "The release managers' key, in the HSM.", Person, false},
		{"who holds the signing key", "It lives in the HSM; sign with `cosign sign --key hsm://prod`.", Person, true},
		{"who holds the signing key", "Route handlers use @Route.get('/x') and @Test() marks tests.", Person, true},
		{"Who did the security review of v2?", "The v2 contracts were audited by Spearbit in August.", Person, false},
		{"who holds the signing key", "Signing keys. Keys live in the HSM, and CI signs with them.", Person, true},
		// A URL: a scheme, www., a path from the root or a host of three labels.
		{"what's the URL of the staging bucket?", "Uploads go to the staging bucket; see deploy.md.", WebAddress, true},
		{"which api url does the release build use", "Release builds use `https://api.tripnote.app`.", WebAddress, false},
		{"what url should the kubelet hit", "SmallRye Health serves `/q/health/ready`.", WebAddress, false},
		{"which link do testers open", "The build is on www.example.org/beta.", WebAddress, false},
		{"what's the backend url", "It talks to erx-test.gateway.example from dev.", WebAddress, false},
		{"what's the url of the docs", "Edit package.json and run make docs into site/.", WebAddress, true},
		// "link" that heads no "what" or "which" question asks nothing.
		{"the link step fails on macOS", "Install the Xcode command line tools.", AnyAnswer, false},
		// A date: a date word heading a "what" or "which", or "when" and an
		// auxiliary; stated by a date written in digits, a month, a weekday
		// or a period.
		{"what year was the manual published", "The manual is in docs/manual.pdf.", Date, true},
		{"which day does the freeze start", "From the 25th until finance signs off.", Date, false},
		{"which day does the freeze start", "Deploys stop on Friday afternoon.", Date, false},
		{"which day does the backup run", "At 02:00 UTC.", Date, false},
		{"on what date does the cert expire", "It renews monthly through certbot.", Date, false},
		{"when did the destructive tag get renamed?", "The tag is now `destroy-ok`; CI refuses the old one.", Date, true},
		{"When was the fleet moved to 4.5.7?", "Fleet upgrades go through the canary ring first.", Date, true},
		{"When was the fleet moved to 4.5.7?", "The fleet moved in March, after the canary ring.", Date, false},
		{"when was the bucket created", "On 2024-03-01, by terraform.", Date, false},
		{"when was the key rotated", "Keys rotate every 90 days.", Date, false},
		{"when does the cplex licence expire", "The licence file is mounted from the vault.", Date, true},
		{"When is the next release?", "Releases go out every second Tuesday.", Date, false},
		// A version or a model number is not a date.
		{"on what date was the fleet moved to 4.5.7?", "The fleet moved to 4.5.7 after the ESC bug.", Date, true},
		{"what year was the K80 manual published?", "The scanned K80 manual is in docs/manual/.", Date, true},
		{"what year was the K80 manual published?", "Kessler published it in 1987.", Date, false},
		// Months and weekdays are read capitalised only: "may" is a verb too.
		{"When is the upgrade to 4.10 scheduled?", "4.9.2 on the managers. Agents may be older, so upgrade managers first.", Date, true},
		{"When is the upgrade to 4.10 scheduled?", "Planned for May, after the audit.", Date, false},
		// A "when" asking what its asker should do asks for a condition.
		{"when to redo compass calibration", "After any change to the GPS mast.", AnyAnswer, false},
		{"when do I bump PKG_RELEASE", "For packaging-only changes.", AnyAnswer, false},
		{"when should we rotate the key", "After anyone with access leaves.", AnyAnswer, false},
		{"when are you supposed to squash", "Before merging.", AnyAnswer, false},
		// "who" inside a sentence is not the question's head.
		{"tests fail for users who log in twice", "Clear the session in tearDown.", AnyAnswer, false},
	} {
		if got := Asks(c.query); got != c.asks {
			t.Errorf("Asks(%q) = %v, want %v", c.query, got, c.asks)
		}
		if got := Unstated(c.query, c.answer); got != c.unstated {
			t.Errorf("Unstated(%q, %q) = %v, want %v", c.query, c.answer, got, c.unstated)
		}
	}
}

// FuzzUnstated checks Asks and Unstated on any text: a query asking for no
// type of answer is never unstated, an answer holding a digit states a
// quantity, and one holding a scheme states a web address.
func FuzzUnstated(f *testing.F) {
	f.Add("who owns the billing service", "Ask @dana.")
	f.Add("which jasmine version runs the unit tests", "npm test runs jasmine 5.1.")
	f.Add("how do I run the tests", "make test")
	f.Add("Who?", "@Route.get('/x') and Priya")
	f.Add("what's the URL of the docs", "see https://docs.example.org")
	f.Add("when did the tag get renamed", "In March.")
	f.Add("on what date was 4.5.7 released", "4.5.7 on 03/01.")
	f.Fuzz(func(t *testing.T, query, answer string) {
		asks, unstated := Asks(query), Unstated(query, answer)
		if asks == AnyAnswer && unstated {
			t.Fatalf("Unstated(%q, %q) with nothing asked", query, answer)
		}
		if asks == Quantity && strings.ContainsAny(answer, "0123456789") && unstated {
			t.Fatalf("Unstated(%q, %q): the answer holds a digit", query, answer)
		}
		if asks == WebAddress && strings.Contains(answer, "://") && unstated {
			t.Fatalf("Unstated(%q, %q): the answer holds a scheme", query, answer)
		}
	})
}
