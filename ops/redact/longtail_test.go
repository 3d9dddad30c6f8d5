package redact

import (
	"regexp"
	"strings"
	"testing"
)

// TestLongTailEachClass holds each principle of longtail.go to cases it
// must find and cases of the same context it must leave (a reference, a
// placeholder, a public key, a word where the value would be).
func TestLongTailEachClass(t *testing.T) {
	s := mustNew(t, Options{})
	classes := []struct {
		name      string
		find      []string // text with the secret between « »
		leave     []string
		wantRules []string // the rule each find reports, in order (optional)
	}{
		{"prefix from the catalogue, with no name beside it",
			[]string{
				"got «AKIDq8Zr3kXm2PvN7wLc4Ty9Bs6Hj1Fd5Ge0» back",
				"{\"token\": \"x\", \"oauth\": \"«y0_AgAAAAB3kq9ZmP2xVn7RtLc4Wy8Hs5Jd1Fg6Ke0Qa2TbXr5Mn8Pq»\"}",
				"sudo cloudflared service install «eyJhIjoiNmY0ZDJhN2IxYzllOGYzMGE1YjQ2ZDcyZTgxZjk0YzMiLCJ0IjoiYjdlYzQ4ZjEtOTJhMC00YmQ3LWE2YzUtMzE4ZjBkOWUyYjQ3IiwicyI6Ik1qWTFPV0kz»",
				"b2 account authorize 0014a5b6c7d8e9f0000000003 «K004Zq8Rm3XvN7pLc2Ty9Bs6Hj1Fd5G»",
				"Authorization: Bearer «mlsn.3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a2c4e6b8d0f1a»",
				"PASS «oauth:k3q9zm2xv7pnr4tc8wy1hs6jd5fg0b»",
				"curl https://shop.acme.io/wp-json/wc/v3/orders -u ck_4a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b:«cs_9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e»",
			},
			[]string{
				"see AKIDEXAMPLE in the docs",
				"model.fit(K00)",
				"import posthog; phx_",
				"the oauth: flow",
				"cs_" + strings.Repeat("0", 40),
				"var ck_count = 12",
			}, nil},
		{"names the generic rule lacks",
			[]string{
				"HUAWEICLOUD_SDK_AK=«A97O1K0UM3PC7X922KOK»",
				"QINIU_SK: «Zr3cZO6vXG7lirkwCqDaWjQeEYRodsJXrqAUO1t5»",
				"SALT=«3Ww2cckx57HZzN5bb3Ce4DTRcahNdujD»",
				"TG_API_HASH=«9c3830d802566a8ef01cf7fcbd25d77b»",
				"acme:\n  api:\n    key: «IaiqFOoOhHp8ayiCEbLfo5aoywiQTBWw0stT8Pca»\n    url: https://api.acme.io",
				"mailgun:\n  signing:\n\n    key: \"«7f3c1a9e5b2d8f4a6c0e9b1d3f5a7c92»\"",
				"WP_APPLICATION_PASSWORD=\"«YqoW 8kcI sMGJ vrdA CqZN dC3l»\"",
			},
			[]string{
				"task_skip: «true»",
				"HUAWEICLOUD_SDK_AK=$HW_AK",
				"salt_rounds: 12",
				"SALT=changeme",
				"api_hash = os.environ['TG_API_HASH']",
				"acme:\n  api:\n    key: ${ACME_API_KEY}",
				"ci:\n  cache:\n    key: v2-deps-3f9a1c7e5b2d8f4a",
				"acme:\n  api:\n    key: acme-production-service",
				"api:\nkey: IaiqFOoOhHp8ayiCEbLfo5aoywiQTBWw0stT8Pca",
				"WP_APPLICATION_PASSWORD=\"xxxx xxxx xxxx xxxx xxxx xxxx\"",
			}, nil},
		{"a name and its value as two words of a command",
			[]string{
				"set -gx API_TOKEN «rGsMDXeDskcGGXoQS3QBKjYCUfQDlWXlmExLy7kE»",
				"setenv DB_PASSWORD «Xk2pT9vLq7mN»",
				"netlify env:set CLIENT_SECRET «smrFVtDlbIF_HjnCHnaGX3F4LoY3X-6vrz0TH33V»",
				"aws ssm put-parameter --name /prod/app/signing-secret --type SecureString --value «e7S9s57eJjRu0EQ5DdsZ0IYYSFqsnT9vKhumCSCddGRhkLgD» --overwrite",
			},
			[]string{
				"set -gx PATH /usr/local/bin $PATH",
				"set -gx API_TOKEN $API_TOKEN",
				"netlify env:set CLIENT_SECRET \"$CLIENT_SECRET\"",
				"aws ssm put-parameter --name /prod/app/region --type String --value eu-west-1",
				"aws ssm put-parameter --name /prod/app/signing-secret --type SecureString --value file://secret.txt",
			}, nil},
		{"an API key as the Basic user",
			[]string{
				"curl -v -u «9CHnoma6EBmoFgG5wcsz»:X -H \"Content-Type: application/json\" https://acme.freshdesk.com/api/v2/tickets",
				"curl -X GET 'https://api.hellosign.com/v3/account' -u '«30061938f55d0b2c1bb8069ec97d394ca34938339d43a9335ab570006774c62f»:'",
			},
			[]string{
				"curl -u $FRESHDESK_KEY:X https://acme.freshdesk.com/api/v2/tickets",
				"git push -u origin feature/very-long-branch-name:main",
				"curl -u YOUR_API_KEY_GOES_HERE_PLEASE: https://api.example.com",
			}, nil},
		{"keys providers document as public",
			nil,
			[]string{
				"NEXT_PUBLIC_SUPABASE_PUBLISHABLE_KEY=sb_publishable_uo1mZhA4JjLrIXojaw1oX978A57g5RO",
				"NEXT_PUBLIC_ALGOLIA_SEARCH_ONLY_API_KEY=35b09953b53aa7010310bf7d9fd80060",
				"NEXT_PUBLIC_HCAPTCHA_SITE_KEY=d2e25793-e8b3-4bce-bae4-b3eb642bc46b",
				"PUBNUB_PUBLISH_KEY=pub-c-2b68d7c4-0c34-4379-b1ef-ae2ade4f9332",
				"PUBNUB_SUBSCRIBE_KEY=sub-c-30374df6-4244-48b9-8783-bf9992d9174c",
				"{\"incident_key\": \"ee7ed200b70f03737a407a4f99dd0917\"}",
			}, nil},
	}
	for _, c := range classes {
		for _, f := range c.find {
			a := strings.Index(f, "«")
			b := strings.Index(f, "»")
			want := f[a+len("«") : b]
			text := f[:a] + want + f[b+len("»"):]
			got := false
			for _, x := range s.Scan(text) {
				if text[x.Start:x.End] == want {
					got = true
				}
			}
			if !got {
				t.Errorf("%s: not found in %q (findings %v)", c.name, text, s.Scan(text))
			}
		}
		for _, l := range c.leave {
			l = strings.NewReplacer("«", "", "»", "").Replace(l)
			if fs := s.Scan(l); len(fs) > 0 {
				t.Errorf("%s: %q reported: %q (%s)", c.name, l, l[fs[0].Start:fs[0].End], fs[0].Rule)
			}
		}
	}
}

// TestLongTailCatalogue: every line of catalogue/longtail-formats.txt is
// read into a rule, and each of its prefixes is a part of its regexp's
// literal prefix (every match holds one: what makes the prefilter safe).
func TestLongTailCatalogue(t *testing.T) {
	fs := parseLongtailFormats(longtailFormats)
	lines := 0
	for _, l := range strings.Split(longtailFormats, "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines++
		}
	}
	if len(fs) != lines || lines < 30 {
		t.Fatalf("%d formats read of %d lines", len(fs), lines)
	}
	for _, f := range fs {
		lit, _ := regexp.MustCompile(f.re).LiteralPrefix()
		for _, p := range f.prefixes {
			if len(lit) < 1 || !strings.HasPrefix(p, lit) && !strings.Contains(lit, p) {
				t.Errorf("%s: %s (literal prefix %q) does not hold %q", f.id, f.re, lit, p)
			}
		}
	}
}

// longtailPositives: a positive case for each rule id longtail.go adds
// (TestEveryRuleHasAPositiveCase).
func longtailPositives(g gen) []posCase {
	const lower = "abcdefghijklmnopqrstuvwxyz0123456789"
	const upHex = "0123456789ABCDEF"
	uuid := func() string {
		return g.s(tHex, 8) + "-" + g.s(tHex, 4) + "-4" + g.s(tHex, 3) + "-a" + g.s(tHex, 3) + "-" + g.s(tHex, 12)
	}
	return []posCase{
		{"tencent-cloud-secret-id", "id %s", "AKID" + g.s(tAlnum, 32)},
		{"volcengine-access-key-id", "ak %s", "AKLT" + g.s(tB64url, 44)},
		{"yandex-oauth-token", "got %s", "y0_" + g.s(tB64url, 55)},
		{"yandex-iam-token", "iam %s", "t1.9euelZ" + g.s(tAlnum, 60) + "." + g.s(tB64url, 86)},
		{"exoscale-api-key", "key %s", "EXO" + g.s(tHex, 24)},
		{"digitalocean-spaces-key-id", "id %s", "DO00" + g.s(tUpnum, 16)},
		{"cloudflare-tunnel-token", "install %s", "eyJhIjoi" + g.s(tAlnum, 150)},
		{"backblaze-b2-application-key", "b2 %s", "K004" + g.s(tAlnum, 27)},
		{"gcs-hmac-access-id", "id %s", "GOOG1E" + g.s(tUpnum, 55)},
		{"upcloud-api-token", "t %s", "ucat_01" + g.s(tUpnum, 24)},
		{"axiom-api-token", "t %s", "xaat-" + uuid()},
		{"mailersend-api-token", "t %s", "mlsn." + g.s(tHex, 64)},
		{"africastalking-api-key", "k %s", "atsk_" + g.s(tHex, 64)},
		{"onesignal-api-key", "k %s", "os_v2_app_" + g.s("abcdefghijklmnopqrstuvwxyz234567", 113)},
		{"pubnub-secret-key", "k %s", "sec-c-" + g.s(tAlnum, 48)},
		{"telnyx-api-key", "k %s", "KEY01" + g.s(upHex, 30) + "_" + g.s(tAlnum, 22)},
		{"matrix-access-token", "t %s", "syt_Ym90_" + g.s(tAlnum, 20) + "_" + g.s(tAlnum, 6)},
		{"ntfy-access-token", "t %s", "tk_" + g.s(lower, 29)},
		{"intercom-access-token", "t %s", "dG9rOj" + g.s(tAlnum, 54) + "="},
		{"courier-auth-token", "t %s", "pk_prod_" + g.s(tUpnum, 28)},
		{"twitch-irc-oauth-token", "PASS %s", "oauth:" + g.s(lower, 30)},
		{"posthog-personal-api-key", "k %s", "phx_" + g.s(tAlnum, 43)},
		{"honeybadger-personal-token", "k %s", "hbp_" + g.s(tAlnum, 36)},
		{"apify-api-token", "k %s", "apify_api_" + g.s(tAlnum, 36)},
		{"stytch-secret", "k %s", "secret-live-" + g.s(tB64url, 36) + "="},
		{"xendit-secret-key", "k %s", "xnd_production_" + g.s(tAlnum, 60)},
		{"mercadopago-access-token", "k %s", "APP_USR-" + g.s(tDig, 16) + "-" + g.s(tDig, 6) + "-" + g.s(tHex, 32) + "-" + g.s(tDig, 9)},
		{"midtrans-server-key", "k %s", "Mid-server-" + g.s(tB64url, 24)},
		{"midtrans-sandbox-server-key", "k %s", "SB-Mid-server-" + g.s(tB64url, 24)},
		{"paddle-api-key", "k %s", "pdl_live_apikey_01" + g.s(lower, 24) + "_" + g.s(tAlnum, 22) + "_" + g.s(tAlnum, 3)},
		{"miro-access-token", "t %s", "eyJtaXJvLm9yaWdpbiI6ImV1MDEifQ_" + g.s(tB64url, 27)},
		{"woocommerce-api-key", "k %s", "cs_" + g.s(tHex, 40)},
		{"locationiq-access-token", "k %s", "pk." + g.s(tHex, 32)},
		{"cloud-access-key", "HUAWEICLOUD_SDK_SK=%s", g.s(tAlnum, 40)},
		{"telegram-api-hash", "api_hash = '%s'", g.s(tHex, 32)},
		{"ghost-admin-api-key", "GHOST_ADMIN_API_KEY=%s", g.s(tHex, 24) + ":" + g.s(tHex, 64)},
		{"ably-api-key", "new Ably.Realtime('%s')", g.s(tAlnum, 6) + "." + g.s(tAlnum, 6) + ":" + g.s(tB64url, 43)},
		{"klaviyo-private-key", "klaviyo = KlaviyoAPI(\"%s\")", "pk_" + g.s("0123456789abcdef", 34)},
		{"viber-auth-token", "X-Viber-Auth-Token: %s", g.s(tHex, 16) + "-" + g.s(tHex, 16) + "-" + g.s(tHex, 16)},
		{"webex-access-token", "WEBEX_BOT_TOKEN=%s", g.s(tAlnum, 64) + "_PF84_" + uuid()},
		{"basic-user-key", "curl -u %s:X https://acme.freshdesk.com/api/v2/tickets", g.s(tAlnum, 20)},
	}
}
