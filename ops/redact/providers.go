package redact

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Provider rules added for breadth: tokens with a literal prefix (tok), and
// tokens recognisable only by the provider's name in front of them (kw).

const uuidRe = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`

// kw: a token without a prefix of its own, found after a provider's name
// (ZENDESK_API_TOKEN=…, "algolia key: …", `asanaToken := "…"`): the first
// whole token of the shape that starts within 160 bytes after the identifier
// holding the keyword, and looks random. A keyword inside a path or URL
// (github.com/jfrog/…) is not a context.
func kw(id, shape string, keywords ...string) *Rule {
	re := regexp.MustCompile(`(?:^|[^A-Za-z0-9_-])(?P<s>` + shape + `)`)
	g := re.SubexpIndex("s")
	fm := kwFast(shape)
	r := &Rule{ID: id, Anchors: keywords, Fold: true, Priority: prioContext, emits: []string{id}, kwShape: shape}
	r.find = func(text string, hits []hit, emit func(s, e int, id string)) {
		last := -1
		for _, h := range hits {
			l, e := int(h.pos), int(h.pos+h.alen)
			for l > 0 && isIdentByte(text[l-1]) {
				l--
			}
			for e < len(text) && isIdentByte(text[e]) {
				e++
			}
			// a name in a path or URL, or a file's name before its #hash
			// (sonarqube-reporter-1.2.4.tgz#3b33…) is no context
			if e <= last || l > 0 && text[l-1] == '/' || e < len(text) && (text[e] == '/' || text[e] == '#') {
				continue
			}
			if !kwNamePart(text, l, e, int(h.pos), int(h.pos+h.alen)) {
				continue // probably, nonlinear, onlooker (precision2.go)
			}
			last = e
			if publicName(text[l:e]) { // DISCORD_PUBLIC_KEY, pubkey (general7.go)
				continue
			}
			il, ie := l, e // the name, for browserKey
			for e < len(text) && strings.IndexByte(" \t\"'`:=>,|?]\\", text[e]) >= 0 {
				e++ // the separator: KEY=, "key": ", key => '
			}
			end := e + 160
			if end > len(text) {
				end = len(text)
			}
			if fm != nil && !kwRegexpOnly {
				fm.eachAfterSeparator(text[e:end], func(st, en int) bool {
					st, en = e+st, e+en
					if st > 0 && isTokenByte(text[st-1]) || en < len(text) && isTokenByte(text[en]) || !checkKeyed(text, st, en) || valueKeyPublic(text, st, id) || browserKey(text, il, ie, st, en) {
						return false
					}
					emit(st, en, id)
					return true
				})
				continue
			}
			for _, m := range re.FindAllStringSubmatchIndex(text[e:end], -1) {
				st, en := e+m[2*g], e+m[2*g+1]
				if st > 0 && isTokenByte(text[st-1]) || en < len(text) && isTokenByte(text[en]) || !checkKeyed(text, st, en) || valueKeyPublic(text, st, id) || browserKey(text, il, ie, st, en) {
					continue
				}
				emit(st, en, id)
				break
			}
		}
	}
	return r
}

// kwRegexpOnly (testing) makes kw rules run their regexp, not kwFast.
var kwRegexpOnly bool

// kwFast returns a matcher of shape for eachAfterSeparator, or nil when
// shape is not of the simple form of fast.go, can match empty, or has a
// byte class or literal outside ASCII (where bytes and runes differ).
func kwFast(shape string) *fastMatcher {
	p, err := syntax.Parse(shape, syntax.Perl)
	if err != nil || !asciiOnly(p) {
		return nil
	}
	m := compileFastAny(shape)
	if m == nil || len(m.or) > 0 {
		return nil // (an alternation of sequences: not counted below)
	}
	minLen := 0
	for _, it := range m.items {
		if it.cls != nil {
			minLen += it.min
		} else if !it.opt {
			minLen++ // alternatives are never empty (an optional one may be absent)
		}
	}
	if minLen == 0 {
		return nil
	}
	return m
}

// asciiOnly: every literal and class of p is ASCII (no ., no negated class).
func asciiOnly(p *syntax.Regexp) bool {
	switch p.Op {
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	case syntax.OpLiteral, syntax.OpCharClass:
		for _, r := range p.Rune {
			if r > 127 {
				return false
			}
		}
	}
	for _, sub := range p.Sub {
		if !asciiOnly(sub) {
			return false
		}
	}
	return true
}

// eachAfterSeparator calls f with the offsets of group s of each match of
// (?:^|[^A-Za-z0-9_-])(?P<s>SHAPE) in win (m the matcher of SHAPE), in the
// order and with the offsets FindAllStringSubmatchIndex gives, until f
// returns true. Like the regexp, it tries a match at each rune (an invalid
// byte is one rune), a separator is one rune, ^ holds at 0 only, and the
// search goes on at the end of a match (TestKwFastAgreesWithRegexp).
func (m *fastMatcher) eachAfterSeparator(win string, f func(st, en int) bool) {
	var buf [16]int
	for i := 0; i < len(win); {
		if i == 0 {
			if r := m.matchInto(buf[:0], win); r != nil {
				if f(0, r[1]) {
					return
				}
				i = r[1]
				continue
			}
		}
		c, w := win[i], 1
		if c >= utf8.RuneSelf {
			_, w = utf8.DecodeRuneInString(win[i:])
		} else if isAlnum(c) || c == '_' || c == '-' {
			i++
			continue
		}
		if r := m.matchInto(buf[:0], win[i+w:]); r != nil {
			if f(i+w, i+w+r[1]) {
				return
			}
			i += w + r[1]
			continue
		}
		i += w
	}
}

// checkKeyed: a value found by a provider keyword must look like a key, not
// a word, an identifier or a placeholder.
func checkKeyed(text string, s, e int) bool {
	sec := text[s:e]
	if !randomShape(sec, 3.0, 0) {
		return false
	}
	c := classOf(sec)
	if c.lower+c.upper == 0 {
		return false // digits only: an id, a timestamp
	}
	if c.digit == 0 && (c.upper == 0 || c.lower == 0 || isCamelWords(sec)) {
		return false // one-case letters: words; CamelCase: an identifier
	}
	return true
}

func providerRules() []*Rule {
	return []*Rule{
		// literal prefixes
		tok("together-api-key", `tgp_v1_[A-Za-z0-9_-]{40,}`, "tgp_v1_").after(120),
		tok("cerebras-api-key", `csk-[a-z0-9]{40,64}`, "csk-").after(90).check(checkRandom(3.5, 2)),
		tok("jina-api-key", `jina_[A-Za-z0-9_-]{50,70}`, "jina_").after(90).check(checkRandom(3.5, 3)),
		tok("onepassword-secret-key", `A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`, "A3-").after(60),
		tok("adobe-client-secret", `p8e-[A-Za-z0-9_-]{32,40}`, "p8e-").after(50),
		tok("airtable-pat", `pat[A-Za-z0-9]{14}\.[a-f0-9]{64}`, "pat").after(90).check(checkRandom(3.0, 2)),
		tok("adafruit-io-key", `aio_[A-Za-z0-9]{28}`, "aio_").after(40).check(checkRandom(3.5, 3)),
		tok("dependency-track-api-key", `odt_[A-Za-z0-9]{32,64}`, "odt_").after(80).check(checkRandom(3.5, 2)),
		// Django startproject's default key: 50 characters of a fixed alphabet
		tok("django-secret-key", `django-insecure-[a-z0-9!@#$%^&*(_=+)-]{40,60}`, "django-insecure-").after(90).bound(isTokenByte).check(body(16, prefixLooksReal)),
		tok("twitch-stream-key", `live_[0-9]{8,12}_[A-Za-z0-9]{30,36}`, "live_").after(60).check(checkRandom(3.5, 2)),
		tok("thingsboard-access-token", `thingsboard\.cloud/api/v1/(?P<s>[a-z0-9]{20})`, "thingsboard.cloud/api/v1/").after(50).bound(isTokenByte).check(checkRandom(3.0, 2)),
		// Azure DevOps PATs since 2024: 84 characters, JQQJ at 52 and AZDO at 76
		tok("azure-devops-pat", `[A-Za-z0-9]{52}JQQJ[A-Za-z0-9]{20}AZDO[A-Za-z0-9]{4}`, "AZDO").before(76).after(8).check(checkRandom(3.5, 3)),
		ctx("codeclimate-reporter-id", `[a-f0-9]{64}`, 0, 110, checkRandom(3.0, 2), "CC_TEST_REPORTER_ID", "CODECLIMATE_REPO_TOKEN"),
		tok("artifactory-api-key", `AKCp[A-Za-z0-9]{60,80}`, "AKCp").after(90).check(checkRandom(4.0, 3)),
		tok("artifactory-reference-token", `cmVmd[A-Za-z0-9]{50,70}`, "cmVmd").after(80).bound(isB64).check(checkRandom(4.0, 3)),
		tok("authress-service-client-key", `(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}`, ".acc_", ".acc-").before(50).after(200),
		tok("bitbucket-app-password", `ATBB[A-Za-z0-9_=.-]{28,40}`, "ATBB").after(50).check(checkRandom(3.5, 2)),
		tok("clickhouse-api-secret", `4b1d[A-Za-z0-9]{38}`, "4b1d").after(45).check(checkRandom(3.5, 3)),
		tok("crates-io-token", `cio[A-Za-z0-9]{32}`, "cio").after(40).check(checkRandom(3.5, 2)),
		tok("defined-networking-token", `dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}`, "dnkey-").after(90),
		tok("deno-token", `dd[pw]_[A-Za-z0-9]{36}`, "ddp_", "ddw_").after(45).check(checkRandom(3.5, 2)),
		tok("dropbox-api-token", `sl\.(?:u\.)?[A-Za-z0-9_=-]{100,1000}`, "sl.").after(1010).check(checkRandom(4.0, 3)),
		tok("duffel-api-token", `duffel_(?:test|live)_[A-Za-z0-9_=-]{43}`, "duffel_").after(60),
		tok("elevenlabs-api-key", `sk_[a-f0-9]{48}`, "sk_").after(55).check(checkRandom(3.0, 2)),
		tok("facebook-access-token", `EAA[B-Z][A-Za-z0-9]{80,500}`, "EAA").after(510).bound(isB64).check(checkRandom(4.0, 3)),
		tok("flutterwave-public-key", `FLWPUBK(?:_TEST)?-[a-hA-H0-9]{32}-X`, "FLWPUBK").after(50),
		tok("frameio-api-token", `fio-u-[A-Za-z0-9_=-]{40,80}`, "fio-u-").after(90),
		tok("gitlab-feature-flag-client-token", `glffct-[A-Za-z0-9_-]{20,300}`, "glffct-"),
		tok("gitlab-incoming-mail-token", `glimt-[A-Za-z0-9_-]{25,300}`, "glimt-"),
		tok("gitlab-scim-token", `glsoat-[A-Za-z0-9_-]{20,300}`, "glsoat-"),
		tok("gitlab-session-cookie", `_gitlab_session=(?P<s>[0-9a-z]{32})`, "_gitlab_session=").after(40),
		tok("google-oauth-refresh-token", `1//0[A-Za-z0-9_-]{40,300}`, "1//0").after(310).check(checkRandom(4.0, 3)),
		tok("aws-bedrock-api-key", `ABSK[A-Za-z0-9+/]{100,400}={0,2}`, "ABSK").after(410).bound(isB64).check(checkRandom(4.0, 3)),
		tok("grafana-api-key", `eyJrIjoi[A-Za-z0-9]{70,400}={0,3}`, "eyJrIjoi").after(410).prio(prioSpecific),
		tok("harness-api-key", `(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}`, "pat.", "sat.").after(75),
		tok("hubspot-private-app-token", `pat-(?:na|eu)[12]-`+uuidRe, "pat-na1-", "pat-na2-", "pat-eu1-", "pat-eu2-").after(40),
		tok("infracost-api-token", `ico-[A-Za-z0-9]{32}`, "ico-").after(40).check(all(checkRandom(3.5, 2), notAfter("./"))),
		tok("intra42-client-secret", `s-s4t2(?:ud|af)-[a-f0-9]{64}`, "s-s4t2").after(75),
		tok("launchdarkly-access-token", `(?:api|sdk|mob)-`+uuidRe, "api-", "sdk-", "mob-").after(40),
		tok("lob-api-key", `(?:live|test)_(?:pub_)?[a-f0-9]{31,35}`, "live_", "test_").after(45).check(checkRandom(3.0, 2)),
		tok("mailgun-pub-key", `pubkey-[a-f0-9]{32}`, "pubkey-").after(40),
		tok("mapbox-api-token", `pk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`, "pk.eyJ"),
		tok("maxmind-license-key", `[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk`, "_mmk").before(36).after(1).check(checkRandom(3.5, 2)),
		tok("microsoft-teams-webhook", `https://[A-Za-z0-9.-]+\.webhook\.office\.com/webhookb2/(?P<s>[A-Za-z0-9@-]{40,100}/IncomingWebhook/[A-Za-z0-9]{32}/[A-Za-z0-9-]{36}(?:/[A-Za-z0-9_-]{20,60})?)`, ".webhook.office.com").before(80).after(300).bound(isTokenByte),
		tok("newrelic-browser-api-token", `NRJS-[a-f0-9]{19}`, "NRJS-").after(25),
		tok("nuget-api-key", `oy2[a-z0-9]{43}`, "oy2").after(50).check(checkRandom(3.5, 2)),
		tok("octopus-deploy-api-key", `API-[A-Z0-9]{26,32}`, "API-").after(35).check(all(checkRandom(3.5, 2), notAfter("./"))),
		tok("openshift-user-token", `sha256~[A-Za-z0-9_-]{43}`, "sha256~").after(50).bound(isTokenByte).check(checkRandom(3.5, 2)),
		tok("plaid-access-token", `access-(?:sandbox|development|production)-`+uuidRe, "access-sandbox-", "access-development-", "access-production-").after(40),
		tok("razorpay-key", `rzp_(?:live|test)_[A-Za-z0-9]{14,32}`, "rzp_").after(45),
		tok("readme-api-token", `rdme_[a-z0-9]{60,80}`, "rdme_").after(90),
		tok("salesforce-access-token", `00D[A-Za-z0-9]{12,15}![A-Za-z0-9._]{80,200}`, "00D").after(220).check(checkRandom(4.0, 3)),
		tok("scalingo-api-token", `tk-us-[A-Za-z0-9_-]{48}`, "tk-us-").after(60),
		tok("scaleway-access-key", `SCW[A-Z0-9]{17}`, "SCW").after(20).check(checkRandom(3.0, 2)),
		tok("sendinblue-api-key", `x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}`, "xkeysib-", "xsmtpsib-").after(95),
		tok("settlemint-token", `sm_(?:aat|pat|sat)_[A-Za-z0-9]{16,64}`, "sm_aat_", "sm_pat_", "sm_sat_").after(70),
		tok("sonarqube-token", `sq[pua]_[A-Za-z0-9]{40}`, "sqp_", "squ_", "sqa_").after(45),
		tok("tailscale-key", `tskey-(?:api|auth|client|scim|webhook)-[A-Za-z0-9]{6,20}-[A-Za-z0-9]{20,64}`, "tskey-").after(110),
		tok("yandex-api-key", `AQVN[A-Za-z0-9_-]{35,38}`, "AQVN").after(45),
		tok("clickup-api-token", `pk_[0-9]{6,10}_[A-Z0-9]{32}`, "pk_").after(50),
		tok("twilio-api-key", `SK[0-9a-f]{32}`, "SK").after(34).check(checkRandom(3.0, 2)),
		ctx("sidekiq-secret", `[a-f0-9]{8}:[a-f0-9]{8}`, 40, 60, nil, "contribsys__com", "contribsys.com").bound(isTokenByte),

		// provider name in front of the value
		kw("adafruit-api-key", `[A-Za-z0-9_-]{32}`, "adafruit"),
		kw("adobe-client-id", `[a-f0-9]{32}`, "adobe"),
		kw("airtable-api-key", `[A-Za-z0-9]{17}`, "airtable"),
		kw("algolia-api-key", `[A-Za-z0-9]{32}`, "algolia"),
		kw("alibaba-secret-key", `[A-Za-z0-9]{30}`, "alibaba", "aliyun"),
		kw("asana-token", `[0-9]/[0-9]{10,20}(?:/[0-9]{10,20})?:[A-Za-z0-9]{32}|[A-Za-z0-9]{32}`, "asana"),
		kw("atlassian-api-token", `[A-Za-z0-9]{24}`, "atlassian", "confluence", "jira"),
		kw("beamer-api-token", `b_[A-Za-z0-9=_-]{44}`, "beamer"),
		kw("bitbucket-client-secret", `[A-Za-z0-9=_-]{32,64}`, "bitbucket"),
		kw("bittrex-api-key", `[A-Za-z0-9]{32}`, "bittrex"),
		kw("cisco-meraki-api-key", `[0-9a-f]{40}`, "meraki"),
		kw("codecov-access-token", uuidRe+`|[A-Za-z0-9]{32}`, "codecov"),
		kw("cohere-api-key", `[A-Za-z0-9]{40}`, "cohere", "co_api_key"),
		kw("coinbase-access-token", `[A-Za-z0-9_-]{64}`, "coinbase"),
		kw("confluent-api-key", `[A-Za-z0-9+/]{64}|[A-Za-z0-9]{16}`, "confluent"),
		kw("contentful-delivery-token", `[A-Za-z0-9=_-]{43}`, "contentful"),
		kw("datadog-api-key", `[a-z0-9]{40}|[a-f0-9]{32}`, "datadog"),
		kw("discord-client-secret", `[a-f0-9]{64}|[A-Za-z0-9=_-]{32}`, "discord"),
		kw("droneci-access-token", `[A-Za-z0-9]{32}`, "droneci", "drone_token", "drone-token"),
		kw("dropbox-api-token", `[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43}|[A-Za-z0-9]{15}`, "dropbox"),
		kw("etsy-access-token", `[A-Za-z0-9]{24}`, "etsy"),
		kw("facebook-secret", `[0-9]{15,16}(?:\||%7C)[A-Za-z0-9_-]{27,40}|[a-f0-9]{32}`, "facebook"),
		kw("fastly-api-token", `[A-Za-z0-9=_-]{32}`, "fastly"),
		kw("finicity-api-token", `[a-f0-9]{32}|[A-Za-z0-9]{20}`, "finicity"),
		kw("finnhub-access-token", `[A-Za-z0-9]{20}`, "finnhub"),
		kw("flickr-access-token", `[A-Za-z0-9]{32}`, "flickr"),
		kw("freshbooks-access-token", `[A-Za-z0-9]{64}`, "freshbooks"),
		kw("gitter-access-token", `[A-Za-z0-9_-]{40}`, "gitter"),
		kw("gocardless-api-token", `(?:live|sandbox)_[A-Za-z0-9_=-]{40}`, "gocardless"),
		kw("hubspot-api-key", uuidRe, "hubspot"),
		kw("intercom-api-key", `[A-Za-z0-9=_-]{60}`, "intercom"),
		kw("jfrog-api-key", `[A-Za-z0-9]{64,73}`, "jfrog", "artifactory", "bintray", "xray"),
		kw("kraken-access-token", `[A-Za-z0-9/=_+-]{80,90}`, "kraken"),
		kw("kucoin-access-token", uuidRe+`|[a-f0-9]{24}`, "kucoin"),
		kw("launchdarkly-access-token", `[A-Za-z0-9=_-]{40}`, "launchdarkly"),
		kw("linear-client-secret", `[a-f0-9]{32}`, "linear"),
		kw("linkedin-client-secret", `[A-Za-z0-9]{14,16}`, "linkedin", "linked_in", "linked-in"),
		kw("mailgun-signing-key", `[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}`, "mailgun"),
		kw("mattermost-access-token", `[A-Za-z0-9]{26}`, "mattermost"),
		kw("messagebird-api-token", uuidRe+`|[A-Za-z0-9]{25}`, "messagebird", "message_bird", "message-bird"),
		kw("newrelic-api-key", `[A-Za-z0-9]{64}`, "newrelic", "new_relic", "new-relic"),
		kw("nytimes-access-token", `[A-Za-z0-9=_-]{32}`, "nytimes", "newyorktimes", "new-york-times"),
		kw("okta-access-token", `00[A-Za-z0-9=_-]{40}`, "okta"),
		kw("plaid-api-token", `[A-Za-z0-9]{24,30}`, "plaid"),
		kw("privateai-api-token", `[A-Za-z0-9]{32}`, "privateai", "private_ai", "private-ai"),
		kw("rapidapi-access-token", `[A-Za-z0-9_-]{50}`, "rapidapi"),
		kw("sendbird-access-token", uuidRe+`|[a-f0-9]{40}`, "sendbird"),
		kw("sentry-access-token", `[a-f0-9]{64}`, "sentry"),
		kw("snyk-api-token", uuidRe, "snyk"),
		kw("sonar-api-token", `[A-Za-z0-9=_-]{40}`, "sonar"),
		kw("squarespace-access-token", uuidRe, "squarespace"),
		kw("sumologic-access-token", `[A-Za-z0-9]{64}|su[A-Za-z0-9]{12}`, "sumo"),
		kw("travisci-access-token", `[A-Za-z0-9]{22}`, "travis"),
		kw("twitch-api-token", `[A-Za-z0-9]{30}`, "twitch"),
		kw("twitter-api-secret", `[0-9]{15,25}-[A-Za-z0-9]{20,40}|[A-Za-z0-9]{25,50}`, "twitter"),
		kw("vault-token", `s\.[A-Za-z0-9]{24}`, "vault"),
		kw("yandex-api-key", `t1\.[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]{86}=*|YC[A-Za-z0-9_-]{38}`, "yandex"),
		kw("zendesk-secret-key", `[A-Za-z0-9]{40}`, "zendesk"),
		kw("box-api-token", `[A-Za-z0-9]{32}`, "box_api", "box_client", "box_developer", "box_token", "box_access", "boxapi", "box-api"),
		kw("mailjet-api-key", `[a-f0-9]{32}`, "mailjet"),
		kw("postmark-server-token", uuidRe, "postmark"),
		kw("mistral-api-key", `[A-Za-z0-9]{32}`, "mistral"),
		kw("wandb-api-key", `[a-f0-9]{40}`, "wandb"),
		kw("shodan-api-key", `[A-Za-z0-9]{32}`, "shodan"),
		kw("virustotal-api-key", `[a-f0-9]{64}`, "virustotal"),
		kw("openweather-api-key", `[a-f0-9]{32}`, "openweather", "owm_api", "owm_key"),
		kw("circleci-token", `[a-f0-9]{40}`, "circleci", "circle_token", "circle-token"),
		kw("bugsnag-api-key", `[a-f0-9]{32}`, "bugsnag"),
		kw("clockify-api-key", `[A-Za-z0-9]{48}`, "clockify"),
		kw("blazemeter-api-key", uuidRe+`|[a-f0-9]{40}`, "blazemeter", "runscope"),
		kw("rollbar-access-token", `[a-f0-9]{32}`, "rollbar"),
		kw("pagerduty-api-key", `[A-Za-z0-9_+-]{20}`, "pagerduty"),
		kw("trello-api-key", `[a-f0-9]{64}|[a-f0-9]{32}`, "trello"),
		kw("todoist-api-token", `[a-f0-9]{40}`, "todoist"),
		kw("auth0-client-secret", `[A-Za-z0-9_-]{32,64}`, "auth0"),
		kw("deepgram-api-key", `[a-f0-9]{40}`, "deepgram"),
		kw("elevenlabs-api-key", `[a-f0-9]{32}`, "elevenlabs", "xi_api_key", "xi-api-key"),
		kw("assemblyai-api-key", `[a-f0-9]{32}`, "assemblyai"),
		kw("together-api-key", `[a-f0-9]{64}`, "together_api", "togetherai", "together_ai", "together-api"),
		kw("ngrok-authtoken", `[0-9A-Za-z]{20,30}_[0-9A-Za-z]{20,30}`, "ngrok"),
		kw("mixpanel-api-secret", `[a-f0-9]{32}`, "mixpanel"),
		kw("amplitude-api-key", `[a-f0-9]{32}`, "amplitude"),
		kw("vonage-api-secret", `[A-Za-z0-9]{16}`, "nexmo", "vonage"),
		kw("plivo-auth-token", `[A-Za-z0-9]{40}`, "plivo"),
		kw("pusher-app-secret", `[a-f0-9]{20}`, "pusher"),
		kw("paypal-client-secret", `[A-Za-z0-9_-]{80}`, "paypal"),
		kw("browserstack-access-key", `[A-Za-z0-9]{20}`, "browserstack"),
		kw("saucelabs-access-key", uuidRe, "saucelabs", "sauce_access", "sauce-access"),
		kw("azure-devops-pat", `[a-z0-9]{52}|[A-Za-z0-9]{84}`, "azure_devops", "azure-devops", "azdo", "devops_pat", "ado_pat"),
		kw("linode-api-token", `[a-f0-9]{64}`, "linode"),
		kw("vultr-api-key", `[A-Z0-9]{36}`, "vultr"),
		kw("scaleway-secret-key", uuidRe, "scaleway", "scw_secret"),
		kw("hetzner-api-token", `[A-Za-z0-9]{64}`, "hetzner", "hcloud"),
		kw("mandrill-api-key", `[A-Za-z0-9_-]{22}`, "mandrill"),
		kw("sparkpost-api-key", `[a-f0-9]{40}`, "sparkpost"),
		kw("storyblok-api-token", `[A-Za-z0-9]{22,24}`, "storyblok"),
		kw("sanity-api-token", `sk[A-Za-z0-9]{70,90}`, "sanity"),
		kw("webflow-api-token", `[a-f0-9]{64}`, "webflow"),
		kw("upstash-token", `[A-Za-z0-9=_-]{30,100}`, "upstash"),
		kw("fireworks-api-key", `fw_[A-Za-z0-9]{20,40}`, "fireworks"),
		// AI providers of issue 31: by name, for keys with no prefix
		kw("baseten-api-key", `[A-Za-z0-9]{8}\.[A-Za-z0-9]{32}`, "baseten"),
		kw("ollama-api-key", `[a-f0-9]{32}\.[A-Za-z0-9_-]{24}`, "ollama"),
		kw("runway-api-key", `key_[a-f0-9]{64,128}`, "runway"),
		kw("zhipu-api-key", `[a-f0-9]{32}\.[A-Za-z0-9]{16}`, "zhipu", "bigmodel"),
		kw("ai21-api-key", `[A-Za-z0-9]{32}`, "ai21"),
		kw("cursor-api-key", `key_[a-f0-9]{64}|crsr_[A-Za-z0-9]{40,64}`, "cursor_api", "cursor-api", "cursorapi"),
		kw("voyage-api-key", `pa-[A-Za-z0-9_-]{40,}`, "voyage"),
		kw("looker-client-secret", `[A-Za-z0-9]{24}`, "looker"),
	}
}
