package redact

import (
	"regexp"
	"strings"
)

// Priorities: a fixed-format token beats a context rule beats the generic
// keyword rules; user rules (10) beat everything.
const (
	prioGeneric  = 1
	prioContext  = 2
	prioPrefix   = 3
	prioSpecific = 4
)

// bigRepeat matches a counted repetition with a large upper bound, {20,255}.
var bigRepeat = regexp.MustCompile(`\{(\d+),\d{3,}\}`)

// tok: a token with a distinctive literal prefix; the regexp starts at the anchor.
// Large upper bounds are opened ({20,255} becomes {20,}): the window (After)
// bounds the match anyway, and a counted repetition of 255 makes the
// regexp program, and so every match attempt, many times more expensive.
func tok(id, re string, anchors ...string) *Rule {
	return &Rule{
		ID: id, Anchors: anchors, Re: regexp.MustCompile(bigRepeat.ReplaceAllString(re, "{$1,}")), After: 400,
		Boundary: isAlnum, Check: checkToken, Priority: prioPrefix,
	}
}

// ctx: a token without a distinctive prefix, searched near case-insensitive keywords.
func ctx(id, re string, before, after int, check func(string, int, int) bool, keywords ...string) *Rule {
	return &Rule{
		ID: id, Anchors: keywords, Fold: true, Re: regexp.MustCompile(re), Before: before, After: after,
		Boundary: isAlnum, Check: check, Priority: prioContext,
	}
}

func (r *Rule) before(n int) *Rule { r.Before = n; return r }
func (r *Rule) after(n int) *Rule  { r.After = n; return r }
func (r *Rule) prio(p int) *Rule   { r.Priority = p; return r }

// findAllByHand: the rule's regexp, run across windows, has a hand-written
// anchored matcher (hand.go).
// starts holds the bytes a match can start with.
func (r *Rule) findAllByHand(starts string, at func(string) []int) *Rule {
	r.handAll = findAllAt(starts, at)
	return r
}

// findAllAt is FindAllStringSubmatchIndex for an anchored matcher that
// never matches empty and only starts at an ASCII byte of starts: the
// matcher tried at each such byte, and after a match at its end.
func findAllAt(starts string, at func(string) []int) func(string) [][]int {
	return func(win string) [][]int {
		var out [][]int
		for i := 0; i < len(win); {
			k := strings.IndexAny(win[i:], starts)
			if k < 0 {
				break
			}
			i += k
			if m := at(win[i:]); m != nil {
				for k := range m {
					if m[k] >= 0 {
						m[k] += i
					}
				}
				out = append(out, m)
				i = m[1]
				continue
			}
			i++
		}
		return out
	}
}
func (r *Rule) bound(f func(byte) bool) *Rule {
	r.Boundary = f
	return r
}
func (r *Rule) check(f func(string, int, int) bool) *Rule { r.Check = f; return r }

func isB64Word(c byte) bool    { return isB64(c) || c == '=' }
func isTokenOrB64(c byte) bool { return isB64(c) || c == '_' || c == '-' }

func checkValue(kind int) func(string, int, int) bool {
	return func(text string, s, e int) bool { return plausibleValue(text[s:e], kind, true) }
}

// checkNear requires one of the words within n bytes around the secret.
func checkNear(n int, words ...string) func(string, int, int) bool {
	return func(text string, s, e int) bool {
		a, b := s-n, e+n
		if a < 0 {
			a = 0
		}
		if b > len(text) {
			b = len(text)
		}
		w := text[a:b]
		for _, x := range words {
			if containsFold(w, x) {
				return prefixLooksReal(text[s:e])
			}
		}
		return false
	}
}

func containsFold(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		if hasPrefixFold(s[i:], lower) {
			return true
		}
	}
	return false
}

func builtinRules() []*Rule {
	pem := `-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----`
	pemEnd := `-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----`
	rules := []*Rule{
		// Anthropic
		tok("anthropic-api-key", `sk-ant-api\d\d-[A-Za-z0-9_-]{20,300}`, "sk-ant-api").prio(prioSpecific),
		tok("anthropic-admin-key", `sk-ant-admin\d\d-[A-Za-z0-9_-]{20,300}`, "sk-ant-admin").prio(prioSpecific),
		tok("anthropic-oauth-token", `sk-ant-o[ar]t\d\d-[A-Za-z0-9_-]{20,300}`, "sk-ant-oat", "sk-ant-ort").prio(prioSpecific),
		// OpenAI and other "sk-" keys
		tok("openai-project-key", `sk-proj-[A-Za-z0-9_-]{20,250}`, "sk-proj-").prio(prioSpecific),
		tok("openai-service-account-key", `sk-svcacct-[A-Za-z0-9_-]{20,250}`, "sk-svcacct-").prio(prioSpecific),
		tok("openai-admin-key", `sk-admin-[A-Za-z0-9_-]{20,250}`, "sk-admin-").prio(prioSpecific),
		tok("openai-api-key", `sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}`, "T3BlbkFJ").before(24).prio(prioSpecific),
		tok("openrouter-api-key", `sk-or-v1-[a-f0-9]{64}`, "sk-or-v1-").prio(prioSpecific),
		tok("generic-sk-key", `sk-[A-Za-z0-9_-]{32,200}`, "sk-").check(checkRandomStrict(3.3, 2)).prio(prioContext),
		// AWS
		tok("aws-access-key-id", `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}`, "A3T", "AKIA", "ASIA", "ABIA", "ACCA").after(20).findAllByHand("A", matchAWSKeyID),
		ctx("aws-secret-key", `[A-Za-z0-9/+]{40}`, 0, 120, checkRandom(4.0, 3),
			"aws_secret", "aws-secret", "awssecret", "aws secret", "secretaccesskey", "secret_access_key",
			"secret-access-key", "secret access key").bound(isB64),
		tok("aws-session-token", `(?:FwoGZXIvYXdzE|IQoJb3JpZ2luX2Vj)[A-Za-z0-9/+]{100,}={0,2}`, "FwoGZXIvYXdzE", "IQoJb3JpZ2luX2Vj").after(2100).bound(isB64),
		// GitHub
		tok("github-pat", `ghp_[A-Za-z0-9]{20,255}`, "ghp_"),
		tok("github-oauth-token", `gho_[A-Za-z0-9]{20,255}`, "gho_"),
		tok("github-user-token", `ghu_[A-Za-z0-9]{20,255}`, "ghu_"),
		tok("github-app-token", `ghs_[A-Za-z0-9]{20,255}`, "ghs_"),
		tok("github-refresh-token", `ghr_[A-Za-z0-9]{20,255}`, "ghr_"),
		tok("github-fine-grained-pat", `github_pat_[A-Za-z0-9_]{30,255}`, "github_pat_"),
		// GitLab
		tok("gitlab-pat", `glpat-[A-Za-z0-9_.-]{20,300}`, "glpat-"),
		tok("gitlab-deploy-token", `gldt-[A-Za-z0-9_-]{20,300}`, "gldt-"),
		tok("gitlab-runner-token", `glrt-[A-Za-z0-9_.-]{20,300}`, "glrt-"),
		tok("gitlab-pipeline-trigger-token", `glptt-[A-Za-z0-9_-]{20,300}`, "glptt-"),
		tok("gitlab-oauth-app-secret", `gloas-[A-Za-z0-9_-]{20,300}`, "gloas-"),
		tok("gitlab-ci-job-token", `glcbt-[A-Za-z0-9_-]{20,300}`, "glcbt-"),
		tok("gitlab-feed-token", `glft-[A-Za-z0-9_-]{20,300}`, "glft-"),
		tok("gitlab-agent-token", `glagent-[A-Za-z0-9_-]{40,300}`, "glagent-"),
		tok("gitlab-runner-registration-token", `GR1348941[A-Za-z0-9_-]{20,300}`, "GR1348941"),
		// Slack
		tok("slack-bot-token", `xoxb-[0-9]{6,16}-[0-9A-Za-z-]{16,100}`, "xoxb-"),
		tok("slack-user-token", `xoxp-[0-9]{6,16}-[0-9A-Za-z-]{16,120}`, "xoxp-").check(all(checkToken, notBefore("#*"))),
		tok("slack-token", `xox[os]-\d+-\d+-\d+-[A-Fa-f0-9]+|xox[acer]-[0-9A-Za-z-]{10,300}|xoxd-[0-9A-Za-z%/+=_-]{20,400}|xoxe\.xox[bp]-\d-[A-Za-z0-9]{100,300}`, "xoxa-", "xoxc-", "xoxd-", "xoxe-", "xoxr-", "xoxs-", "xoxo-", "xoxe.xox"),
		tok("slack-app-token", `xapp-\d-[A-Z0-9]{6,16}-\d{6,16}-[a-z0-9]{32,80}`, "xapp-"),
		tok("slack-webhook-url", `hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_-]{30,200})`, "hooks.slack.com"),
		// Stripe
		tok("stripe-secret-key", `sk_(?:live|test|prod)_[A-Za-z0-9]{10,247}`, "sk_live_", "sk_test_", "sk_prod_").prio(prioSpecific),
		tok("stripe-restricted-key", `rk_(?:live|test|prod)_[A-Za-z0-9]{10,247}`, "rk_live_", "rk_test_", "rk_prod_"),
		tok("stripe-webhook-secret", `whsec_[A-Za-z0-9+/=]{32,100}`, "whsec_"),
		// Google
		tok("google-api-key", `AIza[0-9A-Za-z_-]{30,40}`, "AIza").bound(isTokenByte),
		tok("google-oauth-client-secret", `GOCSPX-[A-Za-z0-9_-]{28}`, "GOCSPX-"),
		tok("google-oauth-access-token", `ya29\.[0-9A-Za-z_-]{30,}`, "ya29.").after(2100),
		{ID: "gcp-service-account-key", Anchors: []string{"private_key"}, After: 12000,
			Re:       regexp.MustCompile(`private_key\\?"\s*:\s*\\?"(?P<s>` + pem + `[\s\S]*?` + pemEnd + `(?:\\\\n|\\n)?)`),
			Priority: prioSpecific + 1},
		// private key blocks: whole block; a truncated block up to where the body stops
		{ID: "private-key", Anchors: []string{"-----BEGIN"}, After: 20000, Priority: prioSpecific,
			Re: regexp.MustCompile(pem + `[\s\S]*?` + pemEnd), Check: checkPEMBody, hand: matchPEMBlock},
		{ID: "private-key", Anchors: []string{"-----BEGIN"}, After: 12000, Priority: prioSpecific,
			Re: regexp.MustCompile(pem + `(?:\\[nr]|[A-Za-z0-9+/=\s→])+`), Check: checkPEMBody, hand: matchPEMBody},
		tok("putty-private-key", `PuTTY-User-Key-File-\d: [\s\S]{0,400}?Private-Lines: \d+(?:\r?\n|\\n)(?:[A-Za-z0-9+/=]+(?:\r?\n|\\n))+`, "PuTTY-User-Key-File-").after(8000),
		tok("age-secret-key", `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`, "AGE-SECRET-KEY-1").check(nil),
		// Azure
		tok("azure-storage-account-key", `AccountKey=(?P<s>[A-Za-z0-9+/]{86}==)`, "AccountKey=").bound(isB64),
		// emulator, Cosmos DB and older accounts: another length, still random base64
		tok("azure-storage-account-key", `AccountKey=(?P<s>[A-Za-z0-9+/]{40,100}={0,2})`, "AccountKey=").after(120).bound(isB64).check(checkRandom(3.5, 3)),
		tok("azure-sas-key", `SharedAccessKey=(?P<s>[A-Za-z0-9+/]{42,44}=)`, "SharedAccessKey=").bound(isB64),
		tok("azure-sas-token", `[?&]sig=(?P<s>[A-Za-z0-9%+/]{40,120}(?:%3[Dd]|=){0,2})`, "sig=").before(1).check(checkNear(400, "sv=", "se=", "sp=")),
		tok("azure-ad-client-secret", `[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`, "Q~").before(4).bound(isTokenByte),
		// package registries and dev platforms
		tok("npm-token", `npm_[A-Za-z0-9]{30,40}`, "npm_").check(checkRandom(3.3, 2)),
		tok("pypi-token", `pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[A-Za-z0-9_-]{50,}`, "pypi-AgE").after(1100),
		tok("rubygems-api-key", `rubygems_[a-f0-9]{48}`, "rubygems_"),
		tok("docker-hub-pat", `dckr_pat_[A-Za-z0-9_-]{27,}`, "dckr_pat_"),
		tok("clojars-token", `CLOJARS_[a-z0-9]{60}`, "CLOJARS_"),
		tok("huggingface-token", `hf_[A-Za-z0-9]{30,40}`, "hf_").check(all(checkRandom(3.5, 2), body(3, mixedCase))),
		tok("huggingface-org-token", `api_org_[A-Za-z0-9]{34}`, "api_org_").check(checkRandom(3.5, 2)),
		tok("databricks-token", `dapi[a-f0-9]{32}(?:-\d)?`, "dapi"),
		tok("pulumi-access-token", `pul-[a-f0-9]{40}`, "pul-"),
		tok("terraform-cloud-token", `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`, ".atlasv1.").before(14),
		tok("vault-token", `hv[sbr]\.[A-Za-z0-9_-]{24,}`, "hvs.", "hvb.", "hvr.").check(checkRandom(3.5, 2)),
		tok("doppler-token", `dp\.(?:pt|st(?:\.[a-z0-9_-]{2,35})?|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}`, "dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
		tok("grafana-cloud-token", `glc_[A-Za-z0-9+/]{32,400}={0,2}`, "glc_").bound(isB64),
		tok("grafana-service-account-token", `glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`, "glsa_"),
		tok("newrelic-user-api-key", `NRAK-[A-Z0-9]{27}`, "NRAK-"),
		tok("newrelic-insert-key", `NRII-[A-Za-z0-9_-]{32}`, "NRII-"),
		tok("newrelic-license-key", `(?:[a-f0-9]{36}|eu01xx[a-f0-9]{30})NRAL`, "NRAL").before(36),
		tok("newrelic-admin-key", `NRAA-[a-f0-9]{27}`, "NRAA-"),
		tok("newrelic-query-key", `NRIQ-[A-Za-z0-9_-]{32}`, "NRIQ-").bound(isTokenByte),
		tok("sentry-auth-token", `sntry[su]_[A-Za-z0-9+/=_]{50,400}`, "sntrys_", "sntryu_"),
		tok("sentry-dsn", `https?://(?P<s>[a-f0-9]{32})(?::[a-f0-9]{32})?@[A-Za-z0-9.-]*sentry`, "sentry").before(160).after(8),
		tok("linear-api-key", `lin_(?:api_[A-Za-z0-9]{40}|oauth_[a-f0-9]{64})`, "lin_api_", "lin_oauth_"),
		tok("notion-token", `ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43}`, "ntn_", "secret_"),
		tok("postman-api-key", `PMAK-[a-f0-9]{24}-[a-f0-9]{34}`, "PMAK-"),
		tok("atlassian-api-token", `AT[AC]TT3[A-Za-z0-9_=-]{100,300}`, "ATATT3", "ATCTT3"),
		tok("sourcegraph-token", `sgp_(?:[A-Fa-f0-9]{16}_|local_)?[A-Fa-f0-9]{40}`, "sgp_"),
		tok("figma-token", `figd_[A-Za-z0-9_-]{40}`, "figd_"),
		tok("buildkite-token", `bkua_[a-f0-9]{40}`, "bkua_"),
		tok("circleci-token", `CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}`, "CCIPAT_"),
		tok("prefect-api-key", `pnu_[A-Za-z0-9]{36}`, "pnu_"),
		tok("contentful-token", `CFPAT-[A-Za-z0-9_-]{43}`, "CFPAT-"),
		tok("dynatrace-token", `dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}`, "dt0c01."),
		tok("typeform-token", `tfp_[A-Za-z0-9_.=-]{59}`, "tfp_"),
		tok("easypost-api-key", `EZ[AT]K[a-zA-Z0-9]{54}`, "EZAK", "EZTK"),
		tok("shippo-api-key", `shippo_(?:live|test)_[a-f0-9]{40}`, "shippo_"),
		tok("flutterwave-secret-key", `FLWSECK(?:_TEST)?-[a-hA-H0-9]{12,32}(?:-X)?`, "FLWSECK"),
		tok("alibaba-access-key-id", `LTAI[A-Za-z0-9]{12,20}`, "LTAI").check(checkRandom(3.3, 3)),
		// SaaS tokens
		tok("shopify-token", `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`, "shpat_", "shpca_", "shppa_", "shpss_"),
		tok("mailgun-api-key", `key-[0-9a-f]{32}`, "key-"),
		tok("mailchimp-api-key", `[0-9a-f]{32}-us[0-9]{1,2}`, "-us").before(32).after(2),
		tok("sendgrid-api-key", `SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{20,64}`, "SG.").bound(isTokenByte),
		tok("square-access-token", `EAAA[A-Za-z0-9_-]{22,100}|sq0atp-[A-Za-z0-9_-]{22,60}`, "EAAA", "sq0atp-").bound(isTokenOrB64).check(checkRandom(3.5, 3)),
		tok("square-oauth-secret", `sq0csp-[A-Za-z0-9_-]{43}`, "sq0csp-"),
		tok("braintree-access-token", `access_token\$(?:production|sandbox)\$[0-9a-z]{16}\$[0-9a-f]{32}`, "access_token$"),
		tok("heroku-api-key", `HRKU-[A-Za-z0-9_-]{60}`, "HRKU-"),
		ctx("heroku-api-key", `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`, 0, 60, checkToken,
			"heroku_api_key", "heroku_api_token", "heroku_oauth_token", "heroku_token", "heroku-api-key", "heroku_auth_token"),
		tok("digitalocean-pat", `dop_v1_[a-f0-9]{32,64}`, "dop_v1_"),
		tok("digitalocean-oauth-token", `doo_v1_[a-f0-9]{32,64}`, "doo_v1_"),
		tok("digitalocean-refresh-token", `dor_v1_[a-f0-9]{32,64}`, "dor_v1_"),
		ctx("datadog-api-key", `[a-f0-9]{40}|[a-f0-9]{32}`, 0, 100, checkRandom(3.0, 2),
			"dd_api_key", "dd-api-key", "datadog_api_key", "datadog-api-key", "dd_app_key", "dd_application_key",
			"dd-application-key", "datadog_app_key", "datadog_application_key", "datadog-app-key", "dd-app-key"),
		ctx("twilio-api-key", `SK[0-9a-fA-F]{32}`, 300, 300, checkToken, "twilio"),
		ctx("twilio-account-sid", `AC[0-9a-fA-F]{32}`, 300, 300, checkToken, "twilio"),
		tok("cloudflare-origin-ca-key", `v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`, "v1.0-"),
		ctx("cloudflare-api-token", `[A-Za-z0-9_-]{40}|[a-f0-9]{37}`, 0, 100, checkRandom(3.3, 2),
			"cloudflare_api_token", "cloudflare_api_key", "cf_api_token", "cf_api_key", "cloudflare_token",
			"cloudflare_global_api_key", "cloudflare-api-token", "cf-api-token", "x-auth-key").bound(isTokenByte),
		tok("flyio-token", `fo1_[A-Za-z0-9_-]{43}`, "fo1_").bound(isTokenByte),
		tok("flyio-token", `FlyV1 (?P<s>fm[12][ar]?_[A-Za-z0-9+/=,_-]{60,})`, "FlyV1 ").after(2100).bound(isTokenByte),
		tok("supabase-access-token", `sbp_[a-f0-9]{40}`, "sbp_"),
		tok("supabase-secret-key", `sb_secret_[A-Za-z0-9_-]{24,}`, "sb_secret_"),
		ctx("vercel-token", `[A-Za-z0-9]{24}`, 0, 60, checkRandom(3.5, 2), "vercel_token", "vercel_api_token", "vercel_access_token", "vercel-token"),
		tok("vercel-token", `vc[pikar]_[A-Za-z0-9_-]{40,100}`, "vcp_", "vci_", "vck_", "vca_", "vcr_").check(checkRandom(3.5, 2)),
		tok("netlify-token", `nfp_[A-Za-z0-9]{36}`, "nfp_"),
		ctx("netlify-token", `[A-Za-z0-9_-]{40,46}`, 0, 60, checkRandom(3.5, 2), "netlify_auth_token", "netlify_token", "netlify_api_token"),
		tok("discord-webhook-url", `discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/(?P<s>[A-Za-z0-9_-]{60,68})`, "/api/webhooks/").before(30).after(120).bound(isTokenByte),
		ctx("discord-bot-token", `[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}`, 300, 300, checkRandom(3.5, 3), "discord", "Bot ").bound(isTokenByte),
		tok("telegram-bot-token", `[0-9]{5,16}:A[A-Za-z0-9_-]{33,34}`, ":A").before(17).after(35).bound(isTokenByte),
		tok("twitter-bearer-token", `AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{30,200}`, "AAAAAAAAAAAAAAAAAAAAA").bound(isB64).check(checkTwitter),
		tok("mapbox-secret-token", `sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`, "sk.eyJ"),
		tok("firebase-fcm-server-key", `AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,200}`, ":APA91b").before(12).bound(isTokenByte),
		tok("onepassword-service-account-token", `ops_eyJ[A-Za-z0-9+/=_-]{100,}`, "ops_eyJ").after(3100),
		// AI providers
		tok("groq-api-key", `gsk_[A-Za-z0-9]{52}`, "gsk_"),
		tok("xai-api-key", `xai-[A-Za-z0-9]{70,90}`, "xai-"),
		tok("perplexity-api-key", `pplx-[A-Za-z0-9]{48}`, "pplx-"),
		tok("replicate-api-token", `r8_[A-Za-z0-9]{37}`, "r8_"),
		tok("langsmith-api-key", `lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}`, "lsv2_"),
		tok("pinecone-api-key", `pcsk_[A-Za-z0-9_]{50,100}`, "pcsk_"),
		tok("tavily-api-key", `tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}`, "tvly-"),
		tok("planetscale-token", `pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}`, "pscale_"),
		tok("render-api-key", `rnd_[A-Za-z0-9]{32}`, "rnd_").check(checkRandom(3.5, 2)),
		tok("neon-api-key", `napi_[a-z0-9]{64}`, "napi_"),
		tok("resend-api-key", `re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}`, "re_").check(checkRandom(3.5, 2)),
		// JWT
		tok("jwt", `eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`, "eyJ").after(8000).bound(isTokenByte).check(checkJWT),
		tok("claude-code-session-url", `claude\.ai/code/session_(?P<s>[A-Za-z0-9]{16,})`, "claude.ai/code/session_").after(120).check(nil),
		tok("azure-datafactory-shir-key", `IR@[0-9a-zA-Z-]{36}@[^@\s"']{1,100}@[0-9a-zA-Z=-]*@[A-Za-z0-9+/=]{44}`, "IR@").after(300).check(nil),
		tok("ansible-vault", `\$?ANSIBLE_VAULT;[0-9]\.[0-9];AES256(?:;[\w-]*)?\s+(?P<s>[0-9a-f]{16,}(?:\s+[0-9a-f]{16,})*)`, "ANSIBLE_VAULT;").before(1).after(20000).check(nil),
		tok("private-key-der", `MII[BCEJ][A-Za-z0-9+/]{60,}={0,2}`, "MII").after(12000).bound(isB64).check(checkDERPrivateKey),
		// HTTP auth headers and CLI passwords
		{ID: "bearer-token", Anchors: []string{"bearer"}, Fold: true, After: 4000, Priority: prioContext,
			Re:       regexp.MustCompile(`(?i:bearer)[ \t]+(?P<s>[A-Za-z0-9._~+/-]{12,}=*)`),
			Boundary: isTokenByte, Check: checkBearer},
		{ID: "basic-auth", Anchors: []string{"basic "}, Fold: true, After: 400, Priority: prioContext,
			Re: regexp.MustCompile(`(?i:basic)[ \t]+(?P<s>[A-Za-z0-9+/]{8,300}={0,2})`), Boundary: isB64Word, Check: checkBasic},
		// Authorization: [SCHEME [param=]]VALUE, any scheme (RFC 7235): parsed by hand
		{ID: "authorization-header", Anchors: []string{"authorization"}, Fold: true, Priority: prioContext,
			find: findAuthorization, emits: []string{"authorization-header"}},
		{ID: "curl-basic-auth", Anchors: []string{"-u ", "-u=", "--user ", "--user=", "-u'", "-u\""}, Before: 1, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`(?:^|[\s'"])(?:-u|--user)(?:[ \t]+|=)?["']?[^\s:"'$]*:(?P<s>[^\s"']+)`),
			Check: checkValue(kindPassword), handAll: findCurlUser},
		{ID: "sshpass-password", Anchors: []string{"sshpass"}, After: 200, Priority: prioContext,
			Re: regexp.MustCompile(`sshpass[ \t]+-p[ \t]*["']?(?P<s>[^\s"']+)`), Check: checkValue(kindPassword)},
		{ID: "mysql-cli-password", Anchors: []string{"mysql", "mariadb"}, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`(?:mysql|mysqldump|mysqladmin|mariadb)[ \t][^\n|;&]*?[ \t]-p(?P<s>[^\s'"-][^\s'"]*)`),
			Check: checkValue(kindPassword), handAll: findAllAt("m", matchMySQL)},
		// keyword-context rules
		{ID: "generic", Anchors: assignmentKeywords, Fold: true, Priority: prioGeneric,
			find: findAssignments, findLate: findAssignmentsLate, emits: assignmentIDs[:]},
		{ID: "url-password", Anchors: []string{"://"}, Priority: prioContext,
			find: findURLCreds, emits: urlRuleIDs},
		{ID: "url-secret", Anchors: []string{"://"}, Priority: prioGeneric,
			find: findURLSecrets, emits: []string{"url-secret"}},
	}
	rules = append(rules, structuralRules()...)
	rules = append(rules, keyRules()...)
	rules = append(rules, cliPasswordRules()...)
	rules = append(rules, providerRules()...)
	rules = append(rules, generalRules()...)     // general6.go
	rules = append(rules, encoded4Rules()...)    // encoded4.go
	rules = append(rules, general7Rules()...)    // general7.go
	rules = append(rules, encoded5Rules()...)    // encoded5.go
	rules = append(rules, hashSessionRules()...) // hashsession.go
	rules = append(rules, longtailRules()...)    // longtail.go
	rules = append(rules, obsconnRules()...)     // obsconn.go
	have, anchors := map[string]bool{}, map[string]bool{}
	for _, r := range rules {
		have[r.ID] = true
		for _, id := range r.emits {
			have[id] = true
		}
		for _, a := range r.Anchors {
			anchors[strings.ToLower(a)] = true
		}
	}
	return append(rules, catalogueRules(have, anchors)...)
}

var b64Tab = func() (t [256]bool) {
	for i := range t {
		t[i] = isB64(byte(i))
	}
	return
}()

// checkBearer: a bearer token of 16 characters or more that looks random,
// or a shorter one (RFC 6750's mF_9.B5f-4.1JqM) of all four kinds of
// characters.
func checkBearer(text string, s, e int) bool {
	if e-s >= 16 {
		return randomShape(text[s:e], 3.2, 2)
	}
	return randomShape(text[s:e], 3.2, 4)
}

func checkPEMBody(text string, s, e int) bool {
	body := text[s:e]
	n := 0
	for i := 0; i < len(body) && n < 80; i++ {
		if b64Tab[body[i]] {
			n++
		}
	}
	// header/footer letters count too; require a real body
	return n >= 80
}

func checkJWT(text string, s, e int) bool {
	// signature must look random; payload must decode to a JSON object start
	sec := text[s:e]
	last := sec[lastDot(sec)+1:]
	return len(last) >= 16 && entropy(last) >= 3.5
}

func lastDot(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

func checkTwitter(text string, s, e int) bool {
	sec := text[s:e]
	return strings.Contains(sec, "%") && prefixLooksReal(strings.TrimLeft(sec, "A"))
}
