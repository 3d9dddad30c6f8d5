package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
)

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b32    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	hexch  = "0123456789abcdef"
	b64ch  = alnum + "+/"
	b64url = alnum + "_-"
	alpha  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	lowdig = "abcdefghijklmnopqrstuvwxyz0123456789"
	bech   = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"
)

func rs(r *rand.Rand, set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[r.Intn(len(set))]
	}
	return string(b)
}

// kinds of planted values decide the contexts they are planted in
const (
	kToken    = iota // a self-identifying token (prefix)
	kCtx             // a token only recognisable by its variable name
	kPassword        // a human password next to a keyword
	kURL             // a URL with a password
	kBlock           // a multi-line private key
	kHeader          // an Authorization header value
)

type secretType struct {
	rule string // expected rule id
	kind int
	env  string
	// gen returns the value to plant and the span of the secret inside it
	gen func(r *rand.Rand) (v string, s, e int)
}

func whole(f func(r *rand.Rand) string) func(r *rand.Rand) (string, int, int) {
	return func(r *rand.Rand) (string, int, int) { v := f(r); return v, 0, len(v) }
}

func pre(prefix, set string, n int) func(r *rand.Rand) (string, int, int) {
	return whole(func(r *rand.Rand) string { return prefix + rs(r, set, n) })
}

func tk(rule, env string, g func(r *rand.Rand) (string, int, int)) secretType {
	return secretType{rule, kToken, env, g}
}
func cx(rule, env string, g func(r *rand.Rand) (string, int, int)) secretType {
	return secretType{rule, kCtx, env, g}
}

var words = []string{"horse", "battery", "staple", "correct", "purple", "monkey", "dragon", "sunshine", "falcon",
	"river", "tiger", "orange", "winter", "summer", "rocket", "castle", "silver", "kitten", "coffee", "pepper"}

func humanPassword(r *rand.Rand) string {
	w1, w2 := words[r.Intn(len(words))], words[r.Intn(len(words))]
	switch r.Intn(5) {
	case 0:
		return w1 + rs(r, digits, 1+r.Intn(3)) + w2
	case 1:
		return strings.ToUpper(w1[:1]) + w1[1:] + rs(r, digits, 2) + string("!@#%&*"[r.Intn(6)])
	case 2:
		return "Tr0" + w1 + "&" + rs(r, digits, 1)
	case 3:
		return rs(r, alnum+"!#%^*", 12+r.Intn(8))
	default:
		return w1 + "-" + strings.ToUpper(w2[:1]) + w2[1:] + "-" + rs(r, digits, 1)
	}
}

func pemBlock(r *rand.Rand, label string, lines int) string {
	var b strings.Builder
	b.WriteString("-----BEGIN " + label + "-----\n")
	for i := 0; i < lines; i++ {
		b.WriteString(rs(r, b64ch, 64) + "\n")
	}
	b.WriteString(rs(r, b64ch, 20) + "==\n")
	b.WriteString("-----END " + label + "-----")
	return b.String()
}

func jwt(r *rand.Rand) string {
	h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	p := base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%d","name":"%s","iat":%d}`, r.Intn(1e9), words[r.Intn(len(words))], 1700000000+r.Intn(1e7))))
	return h + "." + p + "." + rs(r, b64url, 43)
}

func urlCred(scheme, host string) func(r *rand.Rand) (string, int, int) {
	return func(r *rand.Rand) (string, int, int) {
		user := []string{"app", "deploy", "svc_api", "analytics", "admin"}[r.Intn(5)]
		pw := humanPassword(r)
		if r.Intn(2) == 0 {
			pw = rs(r, alnum, 16+r.Intn(10))
		}
		pw = strings.NewReplacer("@", "9", "#", "8", "%", "7", "/", "6", "?", "5").Replace(pw)
		pre := scheme + "://" + user + ":"
		return pre + pw + "@" + host, len(pre), len(pre) + len(pw)
	}
}

func secretTypes() []secretType {
	oai := func(prefix string) func(r *rand.Rand) (string, int, int) {
		return whole(func(r *rand.Rand) string { return prefix + rs(r, b64url, 74) + "T3BlbkFJ" + rs(r, b64url, 74) })
	}
	ant := func(prefix string) func(r *rand.Rand) (string, int, int) {
		return whole(func(r *rand.Rand) string { return prefix + rs(r, b64url, 93) + "AA" })
	}
	ts := []secretType{
		tk("anthropic-api-key", "ANTHROPIC_API_KEY", ant("sk-ant-api03-")),
		tk("anthropic-admin-key", "ANTHROPIC_ADMIN_KEY", ant("sk-ant-admin01-")),
		tk("anthropic-oauth-token", "CLAUDE_CODE_OAUTH_TOKEN", ant("sk-ant-oat01-")),
		tk("anthropic-oauth-token", "CLAUDE_REFRESH_TOKEN", ant("sk-ant-ort01-")),
		tk("openai-project-key", "OPENAI_API_KEY", oai("sk-proj-")),
		tk("openai-service-account-key", "OPENAI_API_KEY", oai("sk-svcacct-")),
		tk("openai-admin-key", "OPENAI_ADMIN_KEY", oai("sk-admin-")),
		tk("openai-api-key", "OPENAI_KEY", whole(func(r *rand.Rand) string { return "sk-" + rs(r, alnum, 20) + "T3BlbkFJ" + rs(r, alnum, 20) })),
		tk("openrouter-api-key", "OPENROUTER_API_KEY", pre("sk-or-v1-", hexch, 64)),
		tk("generic-sk-key", "DEEPSEEK_API_KEY", pre("sk-", hexch, 32)),
		tk("aws-access-key-id", "AWS_ACCESS_KEY_ID", pre("AKIA", b32, 16)),
		tk("aws-access-key-id", "AWS_ACCESS_KEY_ID", pre("ASIA", b32, 16)),
		cx("aws-secret-key", "AWS_SECRET_ACCESS_KEY", pre("", b64ch, 40)),
		tk("github-pat", "GITHUB_TOKEN", pre("ghp_", alnum, 36)),
		tk("github-oauth-token", "GH_TOKEN", pre("gho_", alnum, 36)),
		tk("github-user-token", "GH_TOKEN", pre("ghu_", alnum, 36)),
		tk("github-app-token", "GITHUB_TOKEN", pre("ghs_", alnum, 36)),
		tk("github-refresh-token", "GITHUB_REFRESH_TOKEN", pre("ghr_", alnum, 36)),
		tk("github-fine-grained-pat", "GITHUB_PAT", whole(func(r *rand.Rand) string { return "github_pat_11" + rs(r, upnum, 20) + "_" + rs(r, alnum, 59) })),
		tk("gitlab-pat", "GITLAB_TOKEN", pre("glpat-", b64url, 20)),
		tk("gitlab-deploy-token", "GITLAB_DEPLOY_TOKEN", pre("gldt-", b64url, 20)),
		tk("gitlab-runner-token", "RUNNER_TOKEN", pre("glrt-", b64url, 20)),
		tk("gitlab-pipeline-trigger-token", "TRIGGER_TOKEN", pre("glptt-", hexch, 40)),
		tk("gitlab-runner-registration-token", "REGISTRATION_TOKEN", pre("GR1348941", b64url, 20)),
		tk("slack-bot-token", "SLACK_BOT_TOKEN", whole(func(r *rand.Rand) string {
			return "xoxb-" + rs(r, digits, 11) + "-" + rs(r, digits, 13) + "-" + rs(r, alnum, 24)
		})),
		tk("slack-user-token", "SLACK_USER_TOKEN", whole(func(r *rand.Rand) string {
			return "xoxp-" + rs(r, digits, 11) + "-" + rs(r, digits, 11) + "-" + rs(r, digits, 13) + "-" + rs(r, hexch, 32)
		})),
		tk("slack-app-token", "SLACK_APP_TOKEN", whole(func(r *rand.Rand) string {
			return "xapp-1-A" + rs(r, upnum, 10) + "-" + rs(r, digits, 13) + "-" + rs(r, hexch, 64)
		})),
		tk("slack-webhook-url", "SLACK_WEBHOOK_URL", func(r *rand.Rand) (string, int, int) {
			p := "https://hooks.slack.com/services/"
			sec := "T" + rs(r, upnum, 8) + "/B" + rs(r, upnum, 10) + "/" + rs(r, alnum, 24)
			return p + sec, len(p), len(p) + len(sec)
		}),
		tk("stripe-secret-key", "STRIPE_SECRET_KEY", pre("sk_live_", alnum, 99)),
		tk("stripe-secret-key", "STRIPE_SECRET_KEY", pre("sk_test_", alnum, 24)),
		tk("stripe-restricted-key", "STRIPE_KEY", pre("rk_live_", alnum, 24)),
		tk("stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET", pre("whsec_", alnum, 32)),
		tk("google-api-key", "GOOGLE_API_KEY", pre("AIza", b64url, 35)),
		tk("google-oauth-client-secret", "GOOGLE_CLIENT_SECRET", pre("GOCSPX-", b64url, 28)),
		tk("azure-storage-account-key", "AZURE_STORAGE_CONNECTION_STRING", func(r *rand.Rand) (string, int, int) {
			p := "DefaultEndpointsProtocol=https;AccountName=" + rs(r, "abcdefghij", 10) + ";AccountKey="
			k := rs(r, b64ch, 86) + "=="
			return p + k + ";EndpointSuffix=core.windows.net", len(p), len(p) + len(k)
		}),
		tk("azure-sas-key", "SERVICEBUS_CONNECTION", func(r *rand.Rand) (string, int, int) {
			p := "Endpoint=sb://" + rs(r, "abcdefghij", 8) + ".servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey="
			k := rs(r, b64ch, 43) + "="
			return p + k, len(p), len(p) + len(k)
		}),
		tk("azure-ad-client-secret", "AZURE_CLIENT_SECRET", whole(func(r *rand.Rand) string { return rs(r, alnum, 3) + rs(r, digits, 1) + "Q~" + rs(r, alnum+"_~.-", 34) })),
		tk("npm-token", "NPM_TOKEN", pre("npm_", alnum, 36)),
		tk("pypi-token", "PYPI_TOKEN", pre("pypi-AgEIcHlwaS5vcmc", b64url, 70)),
		tk("huggingface-token", "HF_TOKEN", pre("hf_", alpha, 34)),
		cx("twilio-api-key", "TWILIO_API_KEY", pre("SK", hexch, 32)),
		cx("twilio-account-sid", "TWILIO_ACCOUNT_SID", pre("AC", hexch, 32)),
		tk("sendgrid-api-key", "SENDGRID_API_KEY", whole(func(r *rand.Rand) string { return "SG." + rs(r, b64url, 22) + "." + rs(r, b64url, 43) })),
		cx("discord-bot-token", "DISCORD_BOT_TOKEN", whole(func(r *rand.Rand) string {
			return "MT" + rs(r, b64url, 24) + "." + rs(r, b64url, 6) + "." + rs(r, b64url, 38)
		})),
		tk("discord-webhook-url", "DISCORD_WEBHOOK", func(r *rand.Rand) (string, int, int) {
			p := "https://discord.com/api/webhooks/" + rs(r, digits, 18) + "/"
			k := rs(r, b64url, 68)
			return p + k, len(p), len(p) + len(k)
		}),
		tk("telegram-bot-token", "TELEGRAM_BOT_TOKEN", whole(func(r *rand.Rand) string { return "7" + rs(r, digits, 9) + ":AA" + rs(r, b64url, 33) })),
		tk("digitalocean-pat", "DIGITALOCEAN_TOKEN", pre("dop_v1_", hexch, 64)),
		tk("digitalocean-oauth-token", "DO_OAUTH", pre("doo_v1_", hexch, 64)),
		tk("digitalocean-refresh-token", "DO_REFRESH", pre("dor_v1_", hexch, 64)),
		cx("datadog-api-key", "DD_API_KEY", pre("", hexch, 32)),
		cx("datadog-api-key", "DD_APP_KEY", pre("", hexch, 40)),
		tk("sentry-dsn", "SENTRY_DSN", func(r *rand.Rand) (string, int, int) {
			k := rs(r, hexch, 32)
			return "https://" + k + "@o" + rs(r, digits, 6) + ".ingest.sentry.io/" + rs(r, digits, 7), 8, 8 + len(k)
		}),
		tk("jwt", "ACCESS_TOKEN", whole(jwt)),
		tk("shopify-token", "SHOPIFY_ACCESS_TOKEN", pre("shpat_", hexch, 32)),
		tk("mailgun-api-key", "MAILGUN_API_KEY", pre("key-", hexch, 32)),
		tk("mailchimp-api-key", "MAILCHIMP_API_KEY", whole(func(r *rand.Rand) string { return rs(r, hexch, 32) + "-us" + rs(r, "123456789", 2) })),
		tk("heroku-api-key", "HEROKU_API_KEY", pre("HRKU-", b64url, 60)),
		tk("square-access-token", "SQUARE_ACCESS_TOKEN", pre("EAAA", b64url, 60)),
		tk("square-oauth-secret", "SQUARE_SECRET", pre("sq0csp-", b64url, 43)),
		tk("braintree-access-token", "BRAINTREE_TOKEN", whole(func(r *rand.Rand) string {
			return "access_token$production$" + rs(r, lowdig, 16) + "$" + rs(r, hexch, 32)
		})),
		tk("atlassian-api-token", "JIRA_API_TOKEN", pre("ATATT3xFfGF0", b64url, 180)),
		tk("linear-api-key", "LINEAR_API_KEY", pre("lin_api_", alnum, 40)),
		tk("notion-token", "NOTION_TOKEN", whole(func(r *rand.Rand) string { return "ntn_" + rs(r, digits, 11) + rs(r, alnum, 35) })),
		tk("notion-token", "NOTION_KEY", pre("secret_", alnum, 43)),
		tk("postman-api-key", "POSTMAN_API_KEY", whole(func(r *rand.Rand) string { return "PMAK-" + rs(r, hexch, 24) + "-" + rs(r, hexch, 34) })),
		tk("doppler-token", "DOPPLER_TOKEN", pre("dp.st.", alnum, 43)),
		tk("vault-token", "VAULT_TOKEN", pre("hvs.", b64url, 90)),
		tk("grafana-cloud-token", "GRAFANA_TOKEN", pre("glc_", b64ch, 80)),
		tk("grafana-service-account-token", "GRAFANA_SA_TOKEN", whole(func(r *rand.Rand) string { return "glsa_" + rs(r, alnum, 32) + "_" + rs(r, hexch, 8) })),
		tk("newrelic-user-api-key", "NEW_RELIC_API_KEY", pre("NRAK-", upnum, 27)),
		tk("newrelic-license-key", "NEW_RELIC_LICENSE_KEY", whole(func(r *rand.Rand) string { return rs(r, hexch, 36) + "NRAL" })),
		cx("cloudflare-api-token", "CLOUDFLARE_API_TOKEN", pre("", b64url, 40)),
		tk("cloudflare-origin-ca-key", "CF_ORIGIN_CA_KEY", whole(func(r *rand.Rand) string { return "v1.0-" + rs(r, hexch, 24) + "-" + rs(r, hexch, 146) })),
		tk("flyio-token", "FLY_API_TOKEN", pre("fo1_", b64url, 43)),
		tk("supabase-access-token", "SUPABASE_ACCESS_TOKEN", pre("sbp_", hexch, 40)),
		cx("vercel-token", "VERCEL_TOKEN", pre("", alnum, 24)),
		tk("netlify-token", "NETLIFY_AUTH_TOKEN", pre("nfp_", alnum, 36)),
		tk("pulumi-access-token", "PULUMI_ACCESS_TOKEN", pre("pul-", hexch, 40)),
		tk("terraform-cloud-token", "TFE_TOKEN", whole(func(r *rand.Rand) string { return rs(r, alnum, 14) + ".atlasv1." + rs(r, b64url, 67) })),
		tk("age-secret-key", "SOPS_AGE_KEY", pre("AGE-SECRET-KEY-1", bech, 58)),
		tk("databricks-token", "DATABRICKS_TOKEN", pre("dapi", hexch, 32)),
		tk("groq-api-key", "GROQ_API_KEY", pre("gsk_", alnum, 52)),
		tk("xai-api-key", "XAI_API_KEY", pre("xai-", alnum, 80)),
		tk("perplexity-api-key", "PPLX_API_KEY", pre("pplx-", alnum, 48)),
		tk("replicate-api-token", "REPLICATE_API_TOKEN", pre("r8_", alnum, 37)),
		tk("docker-hub-pat", "DOCKERHUB_TOKEN", pre("dckr_pat_", b64url, 27)),
		tk("sentry-auth-token", "SENTRY_AUTH_TOKEN", pre("sntrys_eyJpYXQiOjE3", b64ch, 120)),
		tk("langsmith-api-key", "LANGSMITH_API_KEY", whole(func(r *rand.Rand) string { return "lsv2_pt_" + rs(r, hexch, 32) + "_" + rs(r, hexch, 10) })),
		tk("alibaba-access-key-id", "ALIBABA_CLOUD_ACCESS_KEY_ID", pre("LTAI5t", alnum, 18)),
		tk("twitter-bearer-token", "TWITTER_BEARER_TOKEN", whole(func(r *rand.Rand) string {
			return "AAAAAAAAAAAAAAAAAAAAA" + rs(r, alnum, 20) + "%2B" + rs(r, alnum, 30) + "%3D" + rs(r, alnum, 40)
		})),
		tk("figma-token", "FIGMA_TOKEN", pre("figd_", b64url, 40)),
		tk("planetscale-token", "PLANETSCALE_TOKEN", pre("pscale_tkn_", b64url, 43)),
		tk("rubygems-api-key", "GEM_HOST_API_KEY", pre("rubygems_", hexch, 48)),
		// keyword-context generic rules
		{"generic-password", kPassword, "DB_PASSWORD", whole(humanPassword)},
		{"generic-api-key", kCtx, "ACME_API_KEY", pre("", alnum, 32)},
		{"generic-token", kCtx, "INTERNAL_SERVICE_TOKEN", pre("", b64url, 40)},
		{"generic-secret", kCtx, "SESSION_SECRET", pre("", hexch, 64)},
		{"generic-secret", kCtx, "JWT_SECRET", whole(func(r *rand.Rand) string { return rs(r, alnum+"!#%^*", 24) })},
		// URLs
		{"postgres-url-password", kURL, "DATABASE_URL", urlCred("postgres", "db.internal.example.com:5432/app")},
		{"postgres-url-password", kURL, "DATABASE_URL", urlCred("postgresql", "10.0.3.7/app?sslmode=require")},
		{"mysql-url-password", kURL, "MYSQL_URL", urlCred("mysql", "mysql.prod.local:3306/shop")},
		{"mongodb-url-password", kURL, "MONGO_URI", urlCred("mongodb+srv", "cluster0.ab1cd.mongodb.net/test?retryWrites=true")},
		{"mongodb-url-password", kURL, "MONGO_URI", urlCred("mongodb", "mongo-0.mongo:27017/admin")},
		{"redis-url-password", kURL, "REDIS_URL", urlCred("rediss", "redis.cache.example.net:6380/0")},
		{"amqp-url-password", kURL, "BROKER_URL", urlCred("amqps", "rabbit.internal:5671/vhost")},
		{"ftp-url-password", kURL, "FTP_URL", urlCred("ftp", "files.example.org/upload")},
		{"url-password", kURL, "REGISTRY_URL", urlCred("https", "registry.example.com/simple/")},
		// headers
		{"bearer-token", kHeader, "", func(r *rand.Rand) (string, int, int) { k := rs(r, b64url, 40); return "Bearer " + k, 7, 7 + len(k) }},
		{"basic-auth", kHeader, "", func(r *rand.Rand) (string, int, int) {
			k := base64.StdEncoding.EncodeToString([]byte("deploy:" + humanPassword(r)))
			return "Basic " + k, 6, 6 + len(k)
		}},
	}
	ts = append(ts, providerTypes()...)
	for _, l := range []string{"RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"} {
		l := l
		ts = append(ts, secretType{"private-key", kBlock, "", whole(func(r *rand.Rand) string { return pemBlock(r, l, 4+r.Intn(20)) })})
	}
	ts = append(ts, secretType{"gcp-service-account-key", kBlock, "gcp", whole(func(r *rand.Rand) string { return pemBlock(r, "PRIVATE KEY", 8+r.Intn(10)) })})
	return ts
}

// plant is one string to scan, with the secret spans that must be found.
type plant struct {
	typ, ctx string
	rule     string
	text     string
	spans    [][2]int
}

func readFormat(lines []string, first int) string {
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%6d→%s\n", first+i, l)
	}
	return b.String()
}

func jsonStr(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

var fillerEnv = []string{"NODE_ENV=production", "PORT=8080", "LOG_LEVEL=debug", "APP_NAME=billing-api",
	"FEATURE_FLAGS=new_ui,fast_path", "TZ=UTC", "MAX_TOKENS=4096", "TOKEN_TTL_SECONDS=3600", "PASSWORD_MIN_LENGTH=12"}

// contexts place value v (secret at v[s:e]) in a realistic transcript string.
func place(r *rand.Rand, t secretType, v string, s, e int) []plant {
	env := t.env
	lower := strings.ToLower(env)
	var out []plant
	add := func(ctx, pre, post string) {
		out = append(out, plant{typ: t.rule + "/" + env, ctx: ctx, rule: t.rule, text: pre + v + post,
			spans: [][2]int{{len(pre) + s, len(pre) + e}}})
	}
	pick := func() string { return fillerEnv[r.Intn(len(fillerEnv))] }
	switch t.kind {
	case kBlock:
		if t.env == "gcp" {
			esc := strings.ReplaceAll(v, "\n", `\n`) + `\n`
			id := rs(r, hexch, 40)
			lines := []string{"{", `  "type": "service_account",`, `  "project_id": "acme-prod-31337",`,
				`  "private_key_id": "` + id + `",`, `  "private_key": "` + esc + `",`,
				`  "client_email": "deployer@acme-prod-31337.iam.gserviceaccount.com",`, `  "client_id": "1049` + rs(r, digits, 17) + `",`, "}"}
			txt := readFormat(lines, 1)
			i := strings.Index(txt, "-----BEGIN")
			j := strings.Index(txt, "-----END PRIVATE KEY-----") + len("-----END PRIVATE KEY-----")
			out = append(out, plant{typ: t.rule, ctx: "read-json", rule: t.rule, text: txt, spans: [][2]int{{i, j}}})
			raw := strings.Join(lines, "\n")
			i = strings.Index(raw, "-----BEGIN")
			j = strings.Index(raw, "-----END PRIVATE KEY-----") + len("-----END PRIVATE KEY-----")
			out = append(out, plant{typ: t.rule, ctx: "bash-cat", rule: t.rule, text: raw, spans: [][2]int{{i, j}}})
			return out
		}
		typ := t.rule + "/" + v[11:strings.Index(v[5:], "-----")+5]
		lines := strings.Split(v, "\n")
		txt := readFormat(lines, 1)
		j := strings.LastIndex(txt, "-----")
		out = append(out, plant{typ: typ, ctx: "read", rule: t.rule, text: txt, spans: [][2]int{{7 + len("→") - 1, j + 5}}})
		out[len(out)-1].spans[0][0] = strings.Index(txt, "-----BEGIN")
		out = append(out, plant{typ: typ, ctx: "bash-cat", rule: t.rule, text: "$ cat ~/.ssh/id_deploy\n" + v + "\n", spans: [][2]int{{23, 23 + len(v)}}})
		js := jsonStr(v)
		js = js[1 : len(js)-1]
		p := `{"name": "deploy-key", "key": "`
		out = append(out, plant{typ: typ, ctx: "json", rule: t.rule, text: p + js + `", "created": "2024-05-01"}`, spans: [][2]int{{len(p), len(p) + len(js)}}})
		p = "I need to rotate this key, it leaked:\n\n"
		out = append(out, plant{typ: typ, ctx: "prompt", rule: t.rule, text: p + v + "\n\nwhat should I do?", spans: [][2]int{{len(p), len(p) + len(v)}}})
		return out
	case kHeader:
		add("curl", `curl -sS -H "Authorization: `, `" -H "Content-Type: application/json" https://api.internal.example.com/v2/jobs`)
		add("json", `{"method": "GET", "headers": {"Authorization": "`, `", "Accept": "*/*"}}`)
		add("http-log", "> GET /v1/me HTTP/1.1\n> Host: api.example.com\n> Authorization: ", "\n> User-Agent: curl/8.4.0\n")
		add("python", `    headers = {"Authorization": "`, `"}`+"\n    resp = requests.get(url, headers=headers)")
		return out
	case kPassword:
		pw := v
		add("env-read", readFormat([]string{pick(), pick()}, 1)+fmt.Sprintf("%6d→%s=", 3, env), "\n"+readFormat([]string{pick()}, 4))
		add("bash-export", "export "+env+"=\"", "\" && ./scripts/migrate.sh")
		add("edit", "DATABASE = {\n    'ENGINE': 'django.db.backends.postgresql',\n    'USER': 'app',\n    'PASSWORD': '", "',\n}")
		add("prompt", "the staging db password is ", " — can you check why login fails?")
		add("yaml", readFormat([]string{"database:", "  host: db.internal", "  user: app"}, 10)+fmt.Sprintf("%6d→  password: ", 13), "\n"+readFormat([]string{"  pool: 5"}, 14))
		add("json", "{\n  \"db\": {\n    \"user\": \"app\",\n    \"password\": ", "\n  }\n}")
		out[len(out)-1].text = strings.Replace(out[len(out)-1].text, pw, jsonStr(pw), 1)
		out[len(out)-1].spans[0][0]++
		out[len(out)-1].spans[0][1]++
		add("curl", "curl -u deploy:", " https://ci.example.com/api/json")
		add("flag", "mysqldump --host=db --user=root --password=", " app > dump.sql")
		return out
	case kURL:
		add("env-read", readFormat([]string{pick()}, 1)+fmt.Sprintf("%6d→%s=", 2, env), "\n")
		add("bash-export", "export "+env+"='", "'\nalembic upgrade head")
		add("edit", lower+" = \"", "\"\nengine = create_engine("+lower+")")
		add("prompt", "can you connect to ", " and list the tables?")
		add("yaml", "  datasource:\n    url: ", "\n    pool: 10\n")
		add("json", `{"connections": [{"name": "prod", "uri": "`, `"}]}`)
		add("cli", `psql "`, `" -c 'select 1'`)
		return out
	}
	// tokens, by keyword (kCtx) or self-identifying (kToken)
	add("env-read", readFormat([]string{pick(), pick()}, 1)+fmt.Sprintf("%6d→%s=", 3, env), "\n"+readFormat([]string{pick()}, 4))
	add("bash-export", "export "+env+"=", " && npm run deploy")
	add("edit", "import os\n\n"+env+" = \"", "\"\nclient = Client(api_key="+env+")\n")
	add("yaml", readFormat([]string{"service:", "  region: us-east-1"}, 1)+fmt.Sprintf("%6d→  %s: ", 3, lower), "\n")
	add("json", "{\n  \"env\": {\n    \""+env+"\": \"", "\",\n    \"DEBUG\": \"false\"\n  }\n}")
	if t.kind == kToken {
		add("prompt", "Here's the key you asked for: ", " — please add it to the deploy config.")
		add("curl", `curl -H "X-Api-Key: `, `" https://api.example.com/v1/status`)
	} else {
		add("prompt", "ok so the "+env+" is ", " and the region is eu-west-1")
		add("curl", "curl -H \""+strings.ReplaceAll(lower, "_", "-")+": ", "\" https://api.example.com/v1/status")
	}
	return out
}

// hard negatives: must produce no finding at all
func negatives(r *rand.Rand) []plant {
	var out []plant
	add := func(ctx, text string) { out = append(out, plant{typ: "negative/" + ctx, ctx: ctx, text: text}) }
	uuid := func() string {
		h := rs(r, hexch, 32)
		return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
	}
	for i := 0; i < 40; i++ {
		add("uuid", fmt.Sprintf(`{"parentUuid":"%s","sessionId":"%s","token_id":"%s"}`, uuid(), uuid(), uuid()))
		add("git-sha", fmt.Sprintf("commit %s\nAuthor: Dev <dev@example.com>\n\n    fix token refresh\n\n%s Merge branch 'auth'\n", rs(r, hexch, 40), rs(r, hexch, 40)))
		sum := sha256.Sum256([]byte(rs(r, alnum, 10)))
		add("sha256", "sha256:"+hex.EncodeToString(sum[:])+"  dist/app.tar.gz\nchecksum "+hex.EncodeToString(sum[:]))
		add("npm-integrity", `"node_modules/lodash": {"version": "4.17.21", "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz", "integrity": "sha512-`+rs(r, b64ch, 86)+`=="}`)
		add("image", rs(r, b64ch, 4000+r.Intn(20000)))
		add("signature", "E"+string("urstq"[r.Intn(5)])+rs(r, b64ch, 400+r.Intn(2000))+"=")
		add("ids", fmt.Sprintf("toolu_01%s msg_01%s req_011C%s", rs(r, alnum, 22), rs(r, alnum, 22), rs(r, alnum, 20)))
		add("model", "model: claude-sonnet-4-5-20250929, fallback claude-3-5-haiku-20241022, gpt-4o-2024-08-06")
		add("minified", `!function(e,t){"object"==typeof exports?module.exports=t():e.auth=t()}(this,function(){var e="`+rs(r, alnum, 12)+`",t=function(n){return n.token||e};return{token:t,password:function(p){return p.length>8}}});`)
		add("path", "/home/dev/src/auth/token_store.go:42:17: undefined: passwordHash\n/usr/lib/node_modules/@scope/secret-manager/dist/index.js")
		add("url", "https://github.com/acme/api/blob/main/auth/token.go#L42 and http://localhost:3000/@vite/client and https://user@example.com/x")
	}
	code := []string{
		"password = getpass.getpass(\"Password: \")", "if token == nil {\n\treturn errors.New(\"no token\")\n}",
		"const token = await getToken(req)", "token: string;", "password: z.string().min(8),",
		"API_KEY=your-api-key-here", "PASSWORD=${DB_PASSWORD}", "token: <your-token>", "password: \"****\"",
		"postgres://user:@localhost/db", "postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app",
		"GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX",
		"OPENAI_API_KEY=sk-proj-<your-key>", "AWS_SECRET_ACCESS_KEY=****************************************",
		"apiKey: process.env.OPENAI_API_KEY,", "SECRET_KEY = os.environ[\"SECRET_KEY\"]", "--password $PGPASSWORD",
		"export ANTHROPIC_API_KEY=sk-ant-...", "password = self.password", "let secret = String::new();",
		"auth_token = request.headers.get(\"Authorization\")", "max_tokens=1024, input_tokens: 3201",
		"The tokenizer splits text into tokens; pass the secret via env.", "Authorization: Bearer $TOKEN",
		"curl -H \"Authorization: Bearer ${API_TOKEN}\" https://x", "password_hash = bcrypt.hash(password, 10)",
		"DB_PASSWORD=changeme", "token = jwt.sign(payload, process.env.JWT_SECRET)", "secret: !Ref DbSecret",
		"client_secret: {{ .Values.clientSecret }}", "mysql://root:password@localhost:3306/test",
		"redis://localhost:6379/0", "docker run -u 1000:1000 image", "git push -u origin main",
		"The password is stored in the keychain.", "type Credentials struct { Token string `json:\"token\"` }",
		"private_key_path: ~/.ssh/id_ed25519", "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END PUBLIC KEY-----",
		"-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----", "pk_live_" + rs(r, alnum, 24),
		"cache_key = f\"user:{user_id}\"", "token_count: 1523", "next_token: null", "password=True",
		"PASSWORD_RESET_URL=https://example.com/reset", "export GITHUB_TOKEN=$(gh auth token)",
	}
	for _, c := range code {
		add("code", c)
	}
	return out
}

var proseWords = strings.Fields(`the a to of and in is for that with on it as be this are by we can from
function returns value file test error config token session model user request response update the
implementation should handle password validation before saving key secret manager auth flow and
then run go build to check compile errors in package main while the api key is read from env`)

// filler produces realistic non-secret transcript text for throughput.
func filler(r *rand.Rand, n int) []string {
	var out []string
	total := 0
	for total < n {
		var s string
		switch r.Intn(8) {
		case 0, 1:
			var b strings.Builder
			for i := 0; i < 80+r.Intn(300); i++ {
				b.WriteString(proseWords[r.Intn(len(proseWords))])
				b.WriteByte(' ')
			}
			s = b.String()
		case 2:
			var lines []string
			for i := 0; i < 30+r.Intn(60); i++ {
				lines = append(lines, fmt.Sprintf("\tif err := s.store.Put(ctx, key%d, value); err != nil { return fmt.Errorf(\"put %%s: %%w\", key, err) }", i))
			}
			s = readFormat(lines, 1)
		case 3:
			s = rs(r, b64ch, 2000+r.Intn(8000))
		case 4:
			var b strings.Builder
			for i := 0; i < 20+r.Intn(40); i++ {
				fmt.Fprintf(&b, "-rw-r--r--  1 dev staff %6d Jan %2d 12:%02d src/pkg/auth/file_%d.go\n", r.Intn(99999), 1+r.Intn(28), r.Intn(60), i)
			}
			s = b.String()
		case 5:
			var b strings.Builder
			for i := 0; i < 10+r.Intn(20); i++ {
				fmt.Fprintf(&b, `{"name":"pkg-%d","version":"1.%d.0","resolved":"https://registry.npmjs.org/pkg-%d/-/pkg-%d-1.0.0.tgz","integrity":"sha512-%s=="}`+"\n", i, i, i, i, rs(r, b64ch, 86))
			}
			s = b.String()
		case 6:
			s = fmt.Sprintf("commit %s\nAuthor: Dev <dev@example.com>\nDate: Mon Jan 1\n\n    refactor token refresh and password checks\n", rs(r, hexch, 40))
		default:
			s = "E" + rs(r, b64ch, 300+r.Intn(1500))
		}
		out = append(out, s)
		total += len(s)
	}
	return out
}
