package labelled

import "strings"

// Families group the kinds of the labelled sets by what a detector needs
// to find them (the shape of the secret and of its context), so that a
// whole family can be left out of development and judged apart: a rule
// written for one kind of a family helps its siblings, so holding out
// single kinds would measure little.
//
// Held-out families (HeldOut) are not developed against: their misses are
// not looked at to write rules (`eval -public` prints only their figures;
// -v lists the misses of development families only). If one must be
// looked at, move it to development and hold out another.
var families = []struct {
	name  string
	kinds []string // kind ids, or prefixes ending in '*'
}{
	{"generic-assignment", []string{"generic-api-key", "database-password", "nuget-config-password", "hashicorp-tf-password",
		"generic-password-*", "http-header-credential", "frontend-env", "kubernetes-secret-yaml", "sidekiq-secret",
		"generic-assignment-*", "frontend-env-prefix"}},
	{"connection-string", []string{"odbc-connection-string", "jdbc-url", "postgres-uri", "mongodb-uri", "redis-uri", "amqp-uri",
		"azure-storage-connection-string", "azure-service-bus-connection-string", "azure-sas", "sidekiq-sensitive-url", "planetscale-password", "connection-string-forms", "connection-string-forms/*"}},
	{"cli-and-http-auth", []string{"curl-*", "psexec-password", "mysql-password-flag", "sshpass", "cli-flag", "http-header", "cli-flag/*", "http-header/*"}},
	{"password-hash-and-files", []string{"htpasswd", "shadow", "bcrypt", "ntlm", "kerberos-keytab", "filezilla", "netrc", "pgpass", "ansible-vault-token", "password-hash-forms", "password-hash-forms/*"}},
	{"key-material", []string{"private-key*", "age-secret-key", "jwt", "gcp-service-account-key", "google-service-account"}},
	{"ai-provider", []string{"anthropic-*", "openai-*", "groq-*", "perplexity-*", "cohere-*", "huggingface-*", "langsmith-*", "together-ai",
		"cerebras", "baseten", "runway", "ollama", "privateai-*", "claude-code-*", "ai-provider-keys"}},
	{"cloud-and-infra", []string{"aws-*", "alibaba-*", "azure-ad-*", "gcp-api-key", "google-oauth-client", "firebase", "digitalocean-*",
		"cloudflare-*", "flyio-*", "heroku-*", "netlify-*", "yandex-*", "castai-*", "databricks-*", "datafactory-*", "planetscale-*",
		"scalingo-*", "supabase", "openshift-*", "defined-networking-*", "vault-*", "hashicorp-*", "doppler-*", "pulumi-*", "infracost-*",
		"1password-*", "okta", "okta-*", "clickhouse-*", "confluent-*", "cloud-credentials"}},
	{"code-hosting-ci-registry", []string{"github-*", "gitlab-*", "bitbucket-*", "droneci-*", "travisci-*", "sourcegraph-*", "jfrog-*",
		"artifactory-*", "npm-*", "pypi-*", "rubygems-*", "clojars-*", "codecov-*", "snyk-*", "sonar-*", "harness-*", "octopus-*",
		"jenkins", "coveralls", "gradle", "settlemint-*", "chieftools-*", "gitter-*", "blind-code-hosting"}},
	{"chat-mail-webhook", []string{"slack-*", "discord-*", "telegram-*", "twilio-*", "mattermost-*", "microsoft-teams-*", "msteams-*",
		"sendgrid-*", "sendinblue-*", "mailchimp-*", "mailgun-*", "messagebird-*", "sendbird-*", "intercom-*", "webhook-forms"}},
	{"payment-finance-commerce", []string{"stripe-*", "square-*", "braintree-*", "adyen-*", "flutterwave-*", "shopify-*", "plaid-*",
		"gocardless-*", "coinbase-*", "kraken-*", "kucoin-*", "bittrex-*", "finicity-*", "finnhub-*", "chargebee-*", "easypost-*",
		"shippo-*", "duffel-*", "freemius-*", "lob-*", "blind-payment"}},
	{"observability-analytics", []string{"datadog", "datadog-*", "new-relic-*", "newrelic", "grafana-*", "sentry-*", "dynatrace-*",
		"sumologic-*", "looker-*", "launchdarkly-*", "meraki-*", "analytics"}},
	// Four families named only by the kinds of blind-20261127.txt
	// (FAMILY/SHAPE): tools' own credential files (netrc, pgpass, pip.conf,
	// settings.xml, kubeconfig, rclone...), secrets written encoded (base64,
	// URL and JSON escapes, a token as a key), logs and API responses that
	// print a credential, and OAuth tokens, client secrets and session
	// cookies.
	{"credential-file", nil},
	{"encoded", nil},
	{"log-and-response", nil},
	{"oauth-session", nil},
}

// FamilyOther holds the kinds no family names (SaaS APIs with their own
// shapes).
const FamilyOther = "other-saas"

// HeldOut are the families judged apart, never developed against.
// They are families issue 31 does not name as missed (it names generic
// assignments, connection strings, clouds, AI providers, chat and
// webhooks, front-end env files, analytics and password hashes, which are
// developed against).
var HeldOut = map[string]bool{
	"payment-finance-commerce": true,
	"code-hosting-ci-registry": true,
	FamilyOther:                true,
}

// BlindSets are labelled sets written before they were first run and never
// used to write rules, whatever families their kinds belong to: every one
// of their examples is held out (heldout-families.txt holds the families
// issue 31 names, which the other sets develop against).
var BlindSets = map[string]bool{
	"heldout31":        true,
	"heldout-families": true,
	"blind-20261127":   true,
	"blind-20261127b":  true,
	"blind-20261127c":  true,
	"blind-20261127d":  true,
	"blind-20261127e":  true,
}

// DevSets are development sets written for a family HeldOut holds out
// (issue 31 named it as missed): their examples are developed against
// whatever their family, so they count in the dev split, and the held-out
// split keeps only examples no rule was written against.
var DevSets = map[string]bool{
	"dev-longtail": true, // other SaaS, beside cloud, chat/webhooks and generic assignments
}

// Retired lists, per blind set, the families whose examples were retired
// to development: their misses were read to write rules, so they are no
// longer evidence of anything nobody tuned for and count as developed
// against. On 2026-11-27 (stop 30) the lead gave the 43 misses of the
// encoded family over the four blind sets a–d to the sixth round of
// encoded rules; the encoded family's untuned figure is, from then on, that
// of the blind sets written after (blind-20261127e).
var Retired = map[string]map[string]bool{
	"blind-20261127":  {"encoded": true},
	"blind-20261127b": {"encoded": true},
	"blind-20261127c": {"encoded": true},
	"blind-20261127d": {"encoded": true},
}

// retired reports whether an example's family was retired from its blind set.
func retired(e Example) bool { return Retired[e.Set][Family(e.Kind)] }

// IsHeldOut reports whether an example is judged apart and never developed
// against: its family is held out (and its set is no DevSets one), or its
// set is blind (and its family not retired from it). The evaluation never
// prints the misses of such an example, nor its kind's row.
func IsHeldOut(e Example) bool {
	return Split(e) != "dev"
}

// Splits are the three ways an example is used, in the order reports
// print them: developed against, held out by family, held out by set.
var Splits = []string{"dev", "held-out", "blind"}

// Split names how an example is used (one of Splits).
func Split(e Example) string {
	switch {
	case retired(e):
		return "dev"
	case BlindSets[e.Set]:
		return "blind"
	case HeldOut[Family(e.Kind)] && !DevSets[e.Set]:
		return "held-out"
	}
	return "dev"
}

// Family returns the family of a kind. A kind written FAMILY/SHAPE (the
// blind sets name their kinds so) belongs to FAMILY.
func Family(kind string) string {
	if fam, _, ok := strings.Cut(kind, "/"); ok {
		for _, f := range families {
			if f.name == fam {
				return fam
			}
		}
		if fam == FamilyOther {
			return fam
		}
	}
	for _, f := range families {
		for _, k := range f.kinds {
			if k == kind || strings.HasSuffix(k, "*") && strings.HasPrefix(kind, strings.TrimSuffix(k, "*")) {
				return f.name
			}
		}
	}
	return FamilyOther
}

// Families lists every family name, the held-out ones last.
func Families() []string {
	var dev, held []string
	for _, f := range append(families, struct {
		name  string
		kinds []string
	}{FamilyOther, nil}) {
		if HeldOut[f.name] {
			held = append(held, f.name)
		} else {
			dev = append(dev, f.name)
		}
	}
	return append(dev, held...)
}
