package redact

import (
	"encoding/base64"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type gen struct{ r *rand.Rand }

func (g gen) s(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.Intn(len(set))]
	}
	return string(b)
}

const (
	tAlnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	tHex    = "0123456789abcdef"
	tB64    = tAlnum + "+/"
	tB64url = tAlnum + "_-"
	tUpnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	tDig    = "0123456789"
)

type posCase struct {
	rule   string
	text   string // contains secret once; "%s" marks where
	secret string
}

func positives() []posCase {
	g := gen{rand.New(rand.NewSource(7))}
	c := func(rule, text, secret string) posCase { return posCase{rule, text, secret} }
	pem := func(label string) string {
		return "-----BEGIN " + label + "-----\n" + g.s(tB64, 64) + "\n" + g.s(tB64, 64) + "\n" + g.s(tB64, 30) + "==\n-----END " + label + "-----"
	}
	sa := pem("PRIVATE KEY")
	saEsc := strings.ReplaceAll(sa, "\n", `\n`) + `\n`
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:Tr0ub4dor&3x"))
	out := []posCase{
		c("anthropic-api-key", "ANTHROPIC_API_KEY=%s", "sk-ant-api03-"+g.s(tB64url, 93)+"AA"),
		c("anthropic-admin-key", "key: %s", "sk-ant-admin01-"+g.s(tB64url, 93)+"AA"),
		c("anthropic-oauth-token", `{"accessToken":"%s"}`, "sk-ant-oat01-"+g.s(tB64url, 93)+"AA"),
		c("anthropic-oauth-token", `{"refreshToken":"%s"}`, "sk-ant-ort01-"+g.s(tB64url, 93)+"AA"),
		c("openai-project-key", "export OPENAI_API_KEY=%s", "sk-proj-"+g.s(tB64url, 74)+"T3BlbkFJ"+g.s(tB64url, 74)),
		c("openai-service-account-key", "use %s now", "sk-svcacct-"+g.s(tB64url, 74)+"T3BlbkFJ"+g.s(tB64url, 74)),
		c("openai-admin-key", "'%s'", "sk-admin-"+g.s(tB64url, 74)+"T3BlbkFJ"+g.s(tB64url, 74)),
		c("openai-api-key", "key=%s", "sk-"+g.s(tAlnum, 20)+"T3BlbkFJ"+g.s(tAlnum, 20)),
		c("openrouter-api-key", "%s", "sk-or-v1-"+g.s(tHex, 64)),
		c("generic-sk-key", "DEEPSEEK=%s", "sk-"+g.s(tHex, 32)),
		c("aws-access-key-id", "aws_access_key_id = %s", "AKIA"+g.s(tUpnum, 16)),
		c("aws-access-key-id", `"AccessKeyId": "%s"`, "ASIA"+g.s(tUpnum, 16)),
		c("aws-secret-key", "aws_secret_access_key = %s", g.s(tB64, 40)),
		c("aws-secret-key", `"SecretAccessKey": "%s",`, g.s(tB64, 40)),
		c("aws-session-token", "aws_session_token=%s", "IQoJb3JpZ2luX2Vj"+g.s(tB64, 300)),
		c("github-pat", "git clone https://x-access-token:%s@github.com/a/b", "ghp_"+g.s(tAlnum, 36)),
		c("github-oauth-token", "%s", "gho_"+g.s(tAlnum, 36)),
		c("github-user-token", "%s", "ghu_"+g.s(tAlnum, 36)),
		c("github-app-token", "%s", "ghs_"+g.s(tAlnum, 36)),
		c("github-refresh-token", "%s", "ghr_"+g.s(tAlnum, 36)),
		c("github-fine-grained-pat", "GH=%s", "github_pat_11"+g.s(tUpnum, 20)+"_"+g.s(tAlnum, 59)),
		c("gitlab-pat", "%s", "glpat-"+g.s(tB64url, 20)),
		c("gitlab-deploy-token", "%s", "gldt-"+g.s(tB64url, 20)),
		c("gitlab-runner-token", "%s", "glrt-"+g.s(tB64url, 20)),
		c("gitlab-pipeline-trigger-token", "%s", "glptt-"+g.s(tHex, 40)),
		c("gitlab-oauth-app-secret", "%s", "gloas-"+g.s(tHex, 64)),
		c("gitlab-ci-job-token", "%s", "glcbt-"+g.s(tB64url, 30)),
		c("gitlab-feed-token", "%s", "glft-"+g.s(tB64url, 20)),
		c("gitlab-agent-token", "%s", "glagent-"+g.s(tB64url, 50)),
		c("gitlab-runner-registration-token", "%s", "GR1348941"+g.s(tB64url, 20)),
		c("slack-bot-token", "%s", "xoxb-"+g.s(tDig, 11)+"-"+g.s(tDig, 13)+"-"+g.s(tAlnum, 24)),
		c("slack-user-token", "%s", "xoxp-"+g.s(tDig, 11)+"-"+g.s(tDig, 11)+"-"+g.s(tDig, 13)+"-"+g.s(tHex, 32)),
		c("slack-token", "%s", "xoxe-1-"+g.s(tAlnum, 60)),
		c("slack-app-token", "%s", "xapp-1-A"+g.s(tUpnum, 10)+"-"+g.s(tDig, 13)+"-"+g.s(tHex, 64)),
		c("slack-webhook-url", "https://hooks.slack.com/services/%s", "T"+g.s(tUpnum, 8)+"/B"+g.s(tUpnum, 10)+"/"+g.s(tAlnum, 24)),
		c("stripe-secret-key", "%s", "sk_live_"+g.s(tAlnum, 99)),
		c("stripe-restricted-key", "%s", "rk_test_"+g.s(tAlnum, 24)),
		c("stripe-webhook-secret", "%s", "whsec_"+g.s(tAlnum, 32)),
		c("google-api-key", "key=%s&q=1", "AIza"+g.s(tB64url, 35)),
		c("google-oauth-client-secret", "%s", "GOCSPX-"+g.s(tB64url, 28)),
		c("google-oauth-access-token", "%s", "ya29."+g.s(tB64url, 120)),
		c("gcp-service-account-key", `{"type": "service_account", "private_key": "%s", "client_email": "x@y"}`, saEsc),
		c("private-key", "     1→%s\n", pem("OPENSSH PRIVATE KEY")),
		c("private-key", "cat key.pem\n%s\n", pem("RSA PRIVATE KEY")),
		c("private-key", "%s", pem("PGP PRIVATE KEY BLOCK")),
		c("putty-private-key", "%s", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: x\nPublic-Lines: 1\n"+g.s(tB64, 64)+"\nPrivate-Lines: 2\n"+g.s(tB64, 64)+"\n"+g.s(tB64, 40)+"\n"),
		c("age-secret-key", "%s", "AGE-SECRET-KEY-1"+g.s("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58)),
		c("private-key-pkcs12", `$pfx = [Convert]::FromBase64String("%s")`, "MIIKPAIBAzCCCfYGCSqGSIb3DQEHAaCCCecEggnjMIIJ3zCC"+g.s(tB64, 120)),
		c("encoded-secret", "kind: Secret\ndata:\n  GITHUB: %s\n", base64.StdEncoding.EncodeToString([]byte("ghp_"+g.s(tAlnum, 36)))),
		c("java-keystore", "KEYSTORE_BASE64=%s", "/u3+7QAAAAIAAAABAAAAAQAFbXlrZXn/UiNbc+toYEY23BXJ06ubSlsGrIRpkwXuORhD/DPS5uPdZiKQeQreDEIywCRQ4pg/c6mutvmdV377LCKJo1rzP4IXgFUMIC16GLjZc07QqPj+OCRrCinUMr3MVdx8aj7yesBhEASGAhJwmWYm/oZT9+tylIK6nCk="),
		c("nostr-private-key", "NOSTR_NSEC=%s", "nsec1sx65wyz9u68tsau57kdrvp3lw58quyrtrvpcncmerkawcp6kzex5fehsf7"),
		c("crypto-wallet-key", "WIF=%s", "5HxqqANWhKC16qknrjmGf1cADnHMXWj1XP5z6EPYT1KTv2vC92o"),
		c("crypto-seed-phrase", `MNEMONIC="%s"`, "lion hen erode clever chuckle style scout cream jealous author tumble identify"),
		c("docker-config-auth", ".dockerconfigjson: %s", base64.StdEncoding.EncodeToString([]byte(`{"auths":{"ghcr.io":{"auth":"`+basic+`"}}}`))),
		c("azure-storage-account-key", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=%s;EndpointSuffix=core.windows.net", g.s(tB64, 86)+"=="),
		c("azure-sas-key", "Endpoint=sb://x.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=%s", g.s(tB64, 43)+"="),
		c("azure-sas-token", "https://a.blob.core.windows.net/c?sv=2022-11-02&sp=r&se=2025-01-01&sig=%s", g.s(tAlnum, 43)+"%3D"),
		c("azure-ad-client-secret", "%s", "abc8Q~"+g.s(tAlnum, 34)),
		c("npm-token", "//registry.npmjs.org/:_authToken=%s", "npm_"+g.s(tAlnum, 36)),
		c("pypi-token", "%s", "pypi-AgEIcHlwaS5vcmc"+g.s(tB64url, 70)),
		c("rubygems-api-key", "%s", "rubygems_"+g.s(tHex, 48)),
		c("docker-hub-pat", "%s", "dckr_pat_"+g.s(tB64url, 27)),
		c("clojars-token", "%s", "CLOJARS_"+g.s("abcdefghijklmnopqrstuvwxyz0123456789", 60)),
		c("huggingface-token", "HF_TOKEN=%s", "hf_"+g.s(tAlnum, 34)),
		c("huggingface-org-token", "%s", "api_org_"+g.s(tAlnum, 34)),
		c("databricks-token", "%s", "dapi"+g.s(tHex, 32)),
		c("pulumi-access-token", "%s", "pul-"+g.s(tHex, 40)),
		c("terraform-cloud-token", "%s", g.s(tAlnum, 14)+".atlasv1."+g.s(tB64url, 67)),
		c("vault-token", "VAULT_TOKEN=%s", "hvs."+g.s(tB64url, 90)),
		c("doppler-token", "%s", "dp.st."+g.s(tAlnum, 43)),
		c("grafana-cloud-token", "%s", "glc_"+g.s(tB64, 80)),
		c("grafana-service-account-token", "%s", "glsa_"+g.s(tAlnum, 32)+"_"+g.s(tHex, 8)),
		c("newrelic-user-api-key", "%s", "NRAK-"+g.s(tUpnum, 27)),
		c("newrelic-insert-key", "%s", "NRII-"+g.s(tB64url, 32)),
		c("newrelic-license-key", "%s", g.s(tHex, 36)+"NRAL"),
		c("sentry-auth-token", "%s", "sntrys_"+g.s(tB64, 80)),
		c("sentry-dsn", "dsn: https://%s@o123456.ingest.sentry.io/4504", g.s(tHex, 32)),
		c("linear-api-key", "%s", "lin_api_"+g.s(tAlnum, 40)),
		c("notion-token", "%s", "ntn_"+g.s(tDig, 11)+g.s(tAlnum, 35)),
		c("notion-token", "%s", "secret_"+g.s(tAlnum, 43)),
		c("postman-api-key", "%s", "PMAK-"+g.s(tHex, 24)+"-"+g.s(tHex, 34)),
		c("atlassian-api-token", "%s", "ATATT3xFfGF0"+g.s(tB64url, 180)),
		c("sourcegraph-token", "%s", "sgp_"+g.s(tHex, 40)),
		c("figma-token", "%s", "figd_"+g.s(tB64url, 40)),
		c("buildkite-token", "%s", "bkua_"+g.s(tHex, 40)),
		c("circleci-token", "%s", "CCIPAT_"+g.s(tAlnum, 22)+"_"+g.s(tHex, 40)),
		c("prefect-api-key", "%s", "pnu_"+g.s(tAlnum, 36)),
		c("contentful-token", "%s", "CFPAT-"+g.s(tB64url, 43)),
		c("dynatrace-token", "%s", "dt0c01."+g.s(tUpnum, 24)+"."+g.s(tUpnum, 64)),
		c("typeform-token", "%s", "tfp_"+g.s(tAlnum, 59)),
		c("easypost-api-key", "%s", "EZAK"+g.s(tAlnum, 54)),
		c("shippo-api-key", "%s", "shippo_live_"+g.s(tHex, 40)),
		c("flutterwave-secret-key", "%s", "FLWSECK-"+g.s(tHex, 32)+"-X"),
		c("alibaba-access-key-id", "%s", "LTAI5t"+g.s(tAlnum, 18)),
		c("shopify-token", "%s", "shpat_"+g.s(tHex, 32)),
		c("mailgun-api-key", "%s", "key-"+g.s(tHex, 32)),
		c("mailchimp-api-key", "%s", g.s(tHex, 32)+"-us21"),
		c("sendgrid-api-key", "%s", "SG."+g.s(tB64url, 22)+"."+g.s(tB64url, 43)),
		c("square-access-token", "%s", "EAAA"+g.s(tB64url, 60)),
		c("square-oauth-secret", "%s", "sq0csp-"+g.s(tB64url, 43)),
		c("braintree-access-token", "%s", "access_token$production$"+g.s("abcdefghijklmnopqrstuvwxyz0123456789", 16)+"$"+g.s(tHex, 32)),
		c("heroku-api-key", "%s", "HRKU-"+g.s(tB64url, 60)),
		c("heroku-api-key", "HEROKU_API_KEY=%s", "1f3b2c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d"),
		c("digitalocean-pat", "%s", "dop_v1_"+g.s(tHex, 64)),
		c("digitalocean-oauth-token", "%s", "doo_v1_"+g.s(tHex, 64)),
		c("digitalocean-refresh-token", "%s", "dor_v1_"+g.s(tHex, 64)),
		c("datadog-api-key", "DD_API_KEY=%s", g.s(tHex, 32)),
		c("twilio-api-key", "twilio api key %s", "SK"+g.s(tHex, 32)),
		c("twilio-account-sid", "TWILIO_ACCOUNT_SID=%s", "AC"+g.s(tHex, 32)),
		c("cloudflare-origin-ca-key", "%s", "v1.0-"+g.s(tHex, 24)+"-"+g.s(tHex, 146)),
		c("cloudflare-api-token", "CLOUDFLARE_API_TOKEN=%s", g.s(tB64url, 40)),
		c("flyio-token", "%s", "fo1_"+g.s(tB64url, 43)),
		c("flyio-token", "Authorization: FlyV1 %s", "fm2_"+g.s(tB64, 120)),
		c("supabase-access-token", "%s", "sbp_"+g.s(tHex, 40)),
		c("supabase-secret-key", "%s", "sb_secret_"+g.s(tB64url, 31)),
		c("vercel-token", "VERCEL_TOKEN=%s", g.s(tAlnum, 24)),
		c("netlify-token", "%s", "nfp_"+g.s(tAlnum, 36)),
		c("discord-webhook-url", "https://discord.com/api/webhooks/123456789012345678/%s", g.s(tB64url, 68)),
		c("discord-bot-token", "DISCORD_TOKEN=%s", "MT"+g.s(tB64url, 24)+"."+g.s(tB64url, 6)+"."+g.s(tB64url, 38)),
		c("telegram-bot-token", "%s", "7123456789:AA"+g.s(tB64url, 33)),
		c("twitter-bearer-token", "%s", "AAAAAAAAAAAAAAAAAAAAA"+g.s(tAlnum, 20)+"%2B"+g.s(tAlnum, 40)),
		c("mapbox-secret-token", "%s", "sk.eyJ"+g.s(tB64url, 60)+"."+g.s(tB64url, 22)),
		c("firebase-fcm-server-key", "%s", "AAAA"+g.s(tB64url, 7)+":APA91b"+g.s(tB64url, 134)),
		c("onepassword-service-account-token", "%s", "ops_eyJ"+g.s(tB64, 300)),
		c("groq-api-key", "%s", "gsk_"+g.s(tAlnum, 52)),
		c("xai-api-key", "%s", "xai-"+g.s(tAlnum, 80)),
		c("perplexity-api-key", "%s", "pplx-"+g.s(tAlnum, 48)),
		c("replicate-api-token", "%s", "r8_"+g.s(tAlnum, 37)),
		c("langsmith-api-key", "%s", "lsv2_pt_"+g.s(tHex, 32)+"_"+g.s(tHex, 10)),
		c("pinecone-api-key", "%s", "pcsk_"+g.s(tAlnum, 70)),
		c("tavily-api-key", "%s", "tvly-dev-"+g.s(tAlnum, 32)),
		c("planetscale-token", "%s", "pscale_tkn_"+g.s(tB64url, 43)),
		c("render-api-key", "%s", "rnd_"+g.s(tAlnum, 32)),
		c("neon-api-key", "%s", "napi_"+g.s("abcdefghijklmnopqrstuvwxyz0123456789", 64)),
		c("resend-api-key", "%s", "re_"+g.s(tAlnum, 8)+"_"+g.s(tAlnum, 24)),
		c("vercel-token", "%s", "vcp_"+g.s(tAlnum, 56)),
		c("jwt", "Authorization: Bearer %s", "eyJhbGciOiJIUzI1NiJ9."+base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"1234567890","iat":1516239022}`))+"."+g.s(tB64url, 43)),
		c("bearer-token", `-H "Authorization: Bearer %s"`, g.s(tB64url, 40)),
		c("basic-auth", "Authorization: Basic %s\r\n", basic),
		c("authorization-header", `"Authorization": "token %s"`, g.s(tHex, 40)),
		c("curl-basic-auth", "curl -u admin:%s https://ci/api", "Zx9!kLm2Qw"),
		c("sshpass-password", "sshpass -p '%s' ssh root@host", "hunter2horse"),
		c("cli-password", "sqlcmd -S db1 -U sa -P %s -Q \"SELECT 1\"", "Zq8vLw3mNp2x"),
		c("sql-password", "CREATE USER app WITH PASSWORD '%s';", "Zq8vLw3mNp2x"),
		c("url-secret", "curl -X POST https://deploy.example.org/hooks/%s", "IsHwcMBldsocl8iuZpw3IvP91oUvdlO2"),
		c("mysql-cli-password", "mysql -h db -u root -p%s app", "S3cretPw9"),
		c("generic-password", "PASSWORD=%s", "hunter2horse"),
		c("generic-password", "tool --password=%s --x", "Tr0ub4dor&3"),
		c("generic-password", "tool --password %s --x", "Tr0ub4dor&3"),
		c("generic-password", "  password: %s\n  pool: 5", "kitten3purple"),
		c("generic-password", `{"password": "%s"}`, "p@ss w0rd!"[:4]+"w0rd!x"),
		c("generic-password", "my database password is %s.", "hunter2horse"),
		c("generic-password", "     3→DB_PASS=%s\n", "Xk29sLq0"),
		c("generic-api-key", `{"api_key": "%s"}`, g.s(tAlnum, 32)),
		c("generic-api-key", "X-API-Key: %s", g.s(tAlnum, 32)),
		c("generic-api-key", `apiKey: "%s",`, g.s(tAlnum, 32)),
		c("generic-token", `token = "%s"`, g.s(tB64url, 40)),
		c("generic-token", `\"auth_token\": \"%s\"`, g.s(tB64url, 40)),
		c("generic-secret", "export JWT_SECRET=%s", g.s(tHex, 64)),
		c("generic-secret", "client_secret: '%s'", g.s(tAlnum, 30)),
		c("postgres-url-password", "postgres://app:%s@db:5432/x", "s3cretP4ss"),
		c("postgres-url-password", "postgresql://app:%s@db/x", "s3cretP4ss"),
		c("mysql-url-password", "mysql://root:%s@localhost/x", "Zq8kLm2x"),
		c("mongodb-url-password", "mongodb+srv://u:%s@c0.mongodb.net/x", "Zq8kLm2x"),
		c("redis-url-password", "redis://:%s@cache:6379/0", "p4ssw0rdXy"),
		c("redis-url-password", "rediss://default:%s@cache:6380", "p4ssw0rdXy"),
		c("amqp-url-password", "amqps://guest:%s@mq/vhost", "p4ssw0rdXy"),
		c("ftp-url-password", "ftp://u:%s@files.example.org/", "p4ssw0rdXy"),
		c("url-password", "https://deploy:%s@registry.example.com/simple", "p4ssw0rdXy"),
		// a vendor's *_key with a random value, a key after a blank, glued on with a dash, named in prose
		c("generic-api-key", "beebole_key=%s", g.s(tHex, 40)),
		c("generic-api-key", "box-key = %s", g.s(tAlnum, 32)),
		c("generic-secret", "clarifai SECRET %s", g.s(tAlnum, 32)),
		c("generic-token", "appsynergy_token %s", "o5rp8apgq8ds59srpvd4nj0gwvczlr4s7"),
		c("generic-token", "coveralls_SECRETTOKEN %s", g.s(tHex, 37)),
		c("generic-secret", "bugsnag secret %s", "5f1c2b9e-6c1d-4e8f-9a2b-3c4d5e6f7a8b"),
		c("generic-api-key", "dd-apikey-%s", "dd52c29224affe29d163c6bf99e5c34f"),
		c("generic-api-key", "clarifai access key %s", g.s(tAlnum, 32)),
		c("generic-api-key", "campayn key %s", g.s(tHex, 64)),
		c("generic-password", "REACT_APP_AUTH_PASSWORD=%s", "whiteduke"),
		c("generic-password", "Server=db;User ID=app;Password=%s;Trusted_Connection=False", "#gets0m3"),
		c("generic-token", "-H 'Jenkins-Crumb:%s'", g.s(tHex, 32)),
	}
	for _, pc := range providerCases(g) {
		out = append(out, posCase{pc.rule, pc.text, pc.secret})
	}
	out = append(out, hashSessionPositives(g)...) // hashsession_test.go
	out = append(out, longtailPositives(g)...)    // longtail_test.go
	return out
}

func mustNew(t testing.TB, o Options) *Scanner {
	s, err := New(o)
	require.NoError(t, err)
	return s
}

func TestPositives(t *testing.T) {
	s := mustNew(t, Options{})
	for _, c := range positives() {
		text := strings.Replace(c.text, "%s", c.secret, 1)
		start := strings.Index(c.text, "%s")
		t.Run(c.rule, func(t *testing.T) {
			fs := s.Scan(text)
			want := Finding{Start: start, End: start + len(c.secret), Rule: c.rule}
			assert.Contains(t, fs, want, "text %q\nfound %v", text, describe(text, fs))
		})
	}
}

func describe(text string, fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %q", f.Rule, text[f.Start:f.End]))
	}
	return out
}

func TestEveryRuleHasAPositiveCase(t *testing.T) {
	s := mustNew(t, Options{})
	have := map[string]bool{}
	for _, c := range positives() {
		have[c.rule] = true
	}
	catalogue := map[string]bool{}
	for _, r := range s.Rules() {
		if r.Priority == prioCatalogue {
			catalogue[r.ID] = true // TestCatalogueRulesFindTheirShape
		}
	}
	for _, id := range s.RuleIDs() {
		assert.True(t, have[id] || catalogue[id], "no positive test case for rule %s", id)
	}
	assert.GreaterOrEqual(t, len(s.RuleIDs()), 100)
}

var hardNegatives = []string{
	// a camelCase key assigned a name that names a key: a reference in code
	"\t\tPrivateKey:  testRSA2048PrivateKey,\n\t}",
	`{hexKey: hexPKCS8TestPKCS1Key, errorContains: "use ParsePKCS1PrivateKey instead"},`,
	`"decryptionKey": "decryptionKey1024",`,
	`webhook_signature: "sha256"`,
	"f47ac10b-58cc-4372-a567-0e02b2c3d479",
	`{"parentUuid":"b0500f6b-dfa8-4bc6-a6d1-e1d29c8d0a4f","token_id":"2d97ab83-95d2-4194-84f0-99bb499df8ee"}`,
	"commit 3f2a9c1e7b4d8a6f0e5c2b1a9d8e7f6a5b4c3d2e\nAuthor: x",
	"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	`"integrity": "sha512-v2kDEe57lecTulaDIuNTPy3Ry4gLGJ6Z1O3vE1krgXZNrsQ+LFTGHVxVjcXPs17LhbZVGedAJv8XZ1tvj5FvSg=="`,
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
	"EtoDCkYICxgCKkBBmGPqYb1Gt91kLyd0qKt/sn/kmHefWj9XOKec6vaFrUKdf1lynqmacz5U80ax8gTO2g0DvqQluU1LCTp/Vs4eEgxtErD9u15NRMozrjUaDAxkOe02KLrm0AisAyIwAI/S2b+iDPPZhHKi7iIqfpkdUzmD4yq8VUmw9FNjnLmOYEeMemdXkHHZkvt8WPPkKsECtKfEjis3nuSSa1p+LPmQFHt6SaA5jTn82+DjRw0jwj3AD",
	"toolu_01ABCdefGHIjklMNOpqrSTU msg_0133iJhVQpgaE49FU5Rh5ZqF req_011CXib65LooX348zHSinXA2",
	"claude-sonnet-4-5-20250929 claude-haiku-4-5-20251001 gpt-4o-2024-08-06",
	`!function(e,t){"object"==typeof exports?module.exports=t():e.auth=t()}(this,function(){return{token:function(n){return n.token},password:function(p){return p.length>8}}});`,
	"/home/dev/src/auth/token_store.go:42:17: undefined: passwordHash",
	"https://github.com/acme/api/blob/main/auth/token.go#L42 http://localhost:3000/@vite/client",
	"password = getpass.getpass(\"Password: \")",
	"if token == nil {\n\treturn errors.New(\"no token\")\n}",
	"const token = await getToken(req)",
	"token: string;",
	"password: z.string().min(8),",
	"API_KEY=your-api-key-here",
	"PASSWORD=${DB_PASSWORD}",
	"token: <your-token>",
	`password: "****"`,
	"postgres://user:@localhost/db",
	"postgres://${DB_USER}:${DB_PASSWORD}@db:5432/app",
	"postgres://user:<password>@localhost/db",
	"GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX",
	"AWS_SECRET_ACCESS_KEY=****************************************",
	"export ANTHROPIC_API_KEY=sk-ant-api03-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"OPENAI_API_KEY=sk-proj-<your-key>",
	"apiKey: process.env.OPENAI_API_KEY,",
	`SECRET_KEY = os.environ["SECRET_KEY"]`,
	"--password $PGPASSWORD",
	"export ANTHROPIC_API_KEY=sk-ant-...",
	"password = self.password",
	"auth_token = request.headers.get(\"Authorization\")",
	"max_tokens=1024, input_tokens: 3201",
	"The tokenizer splits text into tokens; pass the secret via env.",
	"Authorization: Bearer $TOKEN",
	`curl -H "Authorization: Bearer ${API_TOKEN}" https://x`,
	"DB_PASSWORD=changeme",
	"token = jwt.sign(payload, process.env.JWT_SECRET)",
	"client_secret: {{ .Values.clientSecret }}",
	"docker run -u 1000:1000 image",
	"git push -u origin main",
	"--- PASS: TestFoo/bar (0.01s)",
	"cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 0}",
	"config.Certificates[0].PrivateKey = testRSA2048PrivateKey",
	"-----BEGIN RSA PRIVATE KEY-----\n...\n-----END RSA PRIVATE KEY-----",
	"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gunVTLw7onLRnrq0\n-----END PUBLIC KEY-----",
	"the token is valid for 3600 seconds",
	"Basic usage: run the command with --help",
	"export GITHUB_TOKEN=$(gh auth token)",
	"task-list and disk-usage and risk-assessment-framework-v2-2024-final-version",
	// the blank-separated, dash-glued and prose-key shapes must not take names and dates
	"kubectl describe secret default-token-7xk2p",
	"kubectl get secret my-app-5f4dcc3b5aa765d6 -o yaml",
	"token 2024-05-01T12:00:00Z expired",
	"cache_key = 5f4dcc3b5aa765d61d8327deb882cf99a1",
	"the key 5f4dcc3b5aa765d61d8327deb882cf99 was rotated",
	"sort_key=a1b2c3d4e5f6a7b8c9d0e1f2",
	"commit-key-3f2a9c1e7b4d8a6f0e5c2b1a9d8e7f6a5b4c3d2e",
	"api-key-rotation-policy-v2",
	"REACT_APP_PASSWORD_RESET_URL=resetpage",
	`IAMUserChangePassword = "arn:aws:iam::aws:policy/IAMUserChangePassword"`,
	`usernameLabel:"Username or email:",passwordLabel:"Password:",rememberMeLabel:"Remember me:"`,
	`- echo 'export DATABASE_PASSWORD="'$PRECOMPILE_PASSWORD'"' >> .env`,
	"sonarqube-reporter-1.2.4.tgz#3b335d612137949d2f21fcc6c8c8164db7603227",
	"credentials {\n  username project.findProperty('user')\n  password \"${System.getenv('PW')}\"\n}",
}

func TestHardNegatives(t *testing.T) {
	s := mustNew(t, Options{})
	for _, n := range hardNegatives {
		fs := s.Scan(n)
		assert.Empty(t, fs, "%q: %v", n, describe(n, fs))
	}
}

// The prefilter must never hide a finding: scanning with anchors gives the
// same result as running every rule over the whole text.
func TestPrefilterNeverMisses(t *testing.T) {
	fast := mustNew(t, Options{})
	slow := mustNew(t, Options{})
	slow.noPre = true
	r := rand.New(rand.NewSource(3))
	filler := strings.Fields("the a token to password file error secret key auth run build :// = : -----BEGIN eyJ sk- AKIA xox")
	for _, c := range positives() {
		for k := 0; k < 5; k++ {
			var b strings.Builder
			for i := 0; i < r.Intn(30); i++ {
				b.WriteString(filler[r.Intn(len(filler))] + " ")
			}
			b.WriteString(strings.Replace(c.text, "%s", c.secret, 1))
			for i := 0; i < r.Intn(30); i++ {
				b.WriteString(" " + filler[r.Intn(len(filler))])
			}
			text := b.String()
			assert.Equal(t, describe(text, slow.Scan(text)), describe(text, fast.Scan(text)), "%s: %q", c.rule, text)
		}
	}
	for _, n := range hardNegatives {
		assert.Equal(t, slow.Scan(n), fast.Scan(n), n)
	}
}

func TestAnchorsAreInEveryMatch(t *testing.T) {
	// every positive example contains one of its rule's anchors
	s := mustNew(t, Options{})
	byID := map[string][]*Rule{}
	for _, r := range s.rules {
		byID[r.ID] = append(byID[r.ID], r)
		for _, id := range r.emits {
			byID[id] = append(byID[id], r)
		}
	}
	for _, c := range positives() {
		text := strings.Replace(c.text, "%s", c.secret, 1)
		ok := false
		for _, r := range byID[c.rule] {
			for _, a := range r.Anchors {
				if r.Fold && strings.Contains(strings.ToLower(text), strings.ToLower(a)) || strings.Contains(text, a) {
					ok = true
				}
			}
		}
		assert.True(t, ok, "%s: no anchor in %q", c.rule, text)
	}
}

func TestFindingsSortedNonOverlapping(t *testing.T) {
	s := mustNew(t, Options{})
	var all []string
	for _, c := range positives() {
		all = append(all, strings.Replace(c.text, "%s", c.secret, 1))
	}
	text := strings.Join(all, "\n")
	fs := s.Scan(text)
	require.NotEmpty(t, fs)
	assert.True(t, sort.SliceIsSorted(fs, func(i, j int) bool { return fs[i].Start < fs[j].Start }))
	for i := 1; i < len(fs); i++ {
		assert.LessOrEqual(t, fs[i-1].End, fs[i].Start)
	}
}

func TestSpecificBeatsGeneric(t *testing.T) {
	s := mustNew(t, Options{})
	tok := "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "J9kL1m"
	fs := s.Scan("GITHUB_TOKEN=" + tok)
	require.Len(t, fs, 1)
	assert.Equal(t, "github-pat", fs[0].Rule)
}

func TestUserRulesAndAllow(t *testing.T) {
	s := mustNew(t, Options{
		ExtraRules: map[string]string{
			"acme-token":    `acme_[a-z0-9]{12}`,
			"internal-pass": `INTERNAL_PW\s*=\s*(\S+)`,
		},
		Allow: []string{`^hunter2horse$`, `^acme_000000000000$`},
	})
	text := "x acme_abc123def456 y INTERNAL_PW = zz9 PASSWORD=hunter2horse acme_000000000000"
	fs := s.Scan(text)
	assert.Equal(t, []string{`acme-token "acme_abc123def456"`, `internal-pass "zz9"`}, describe(text, fs))
	assert.Contains(t, s.RuleIDs(), "acme-token")

	only := mustNew(t, Options{DisableDefaults: true, ExtraRules: map[string]string{"x": `secret-[0-9]+`}})
	assert.Equal(t, []string{"x"}, only.RuleIDs())
	assert.Empty(t, only.Scan("PASSWORD=hunter2horse ghp_"+strings.Repeat("aB3dE5fG7h", 3)+"J9kL1m"))
	assert.Len(t, only.Scan("id secret-42"), 1)

	_, err := New(Options{ExtraRules: map[string]string{"bad": `(`}})
	assert.Error(t, err)
	_, err = New(Options{ExtraRules: map[string]string{"bad name": `x`}})
	assert.Error(t, err)
	_, err = New(Options{Allow: []string{`[`}})
	assert.Error(t, err)
}

func TestLoadRulesFile(t *testing.T) {
	dir := t.TempDir()
	opts, err := LoadRulesFile(filepath.Join(dir, "missing.txt"))
	require.NoError(t, err)
	assert.Equal(t, Options{}, opts)

	p := filepath.Join(dir, RulesFileName)
	require.NoError(t, os.WriteFile(p, []byte(`# my rules
rule acme-token acme_[a-z0-9]{12}
rule corp-pw   CORP_PW=(\S+)

allow ^test-
disable-defaults
`), 0o600))
	opts, err = LoadRulesFile(p)
	require.NoError(t, err)
	assert.Equal(t, Options{
		ExtraRules:      map[string]string{"acme-token": `acme_[a-z0-9]{12}`, "corp-pw": `CORP_PW=(\S+)`},
		Allow:           []string{"^test-"},
		DisableDefaults: true,
	}, opts)
	s := mustNew(t, opts)
	assert.Len(t, s.Scan("CORP_PW=abc CORP_PW=test-1"), 1)

	for _, bad := range []string{"rule onlyname", "rule x (", "allow", "allow [", "frobnicate x", "rule a x\nrule a y", "disable-defaults now"} {
		require.NoError(t, os.WriteFile(p, []byte(bad+"\n"), 0o600))
		_, err := LoadRulesFile(p)
		assert.Error(t, err, bad)
	}
}

func TestConcurrentScan(t *testing.T) {
	s := mustNew(t, Options{})
	cases := positives()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, c := range cases {
				text := strings.Replace(c.text, "%s", c.secret, 1)
				if len(s.Scan(text)) == 0 {
					t.Errorf("%s: nothing found", c.rule)
				}
			}
		}()
	}
	wg.Wait()
}

func TestSplitWords(t *testing.T) {
	assert.Equal(t, []string{"aws", "secret", "access", "key"}, splitWords("AWS_SECRET_ACCESS_KEY"))
	assert.Equal(t, []string{"api", "key"}, splitWords("apiKey"))
	assert.Equal(t, []string{"x", "api", "key"}, splitWords("X-API-Key"))
	assert.Equal(t, []string{"db", "password", "2"}, splitWords("DB_PASSWORD2"))
	assert.Equal(t, []string{"oauth", "token"}, splitWords("OAuthToken"))
}
