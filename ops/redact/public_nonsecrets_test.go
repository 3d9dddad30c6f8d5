package redact

import (
	"slices"
	"strings"
	"testing"
)

// TestNonSecretsEachClass holds each principle of public.go (issue 31's
// false positives; development set testdata/dev-nonsecrets.txt) to cases
// it must leave alone and to secrets of the same context it must still
// report («» marks what must be reported).
func TestNonSecretsEachClass(t *testing.T) {
	s := mustNew(t, Options{})
	cases := []struct {
		class string
		find  []string
		leave []string
	}{
		{"publishable-prefix: Stripe/Clerk pk_, PostHog phc_, Supabase sb_publishable_, Datadog pub client tokens, Adyen client keys",
			[]string{"STRIPE_KEY=«sk_live_51Hq8ZtLm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cQx»", "POSTHOG_KEY=«phx_Lq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm»",
				"SUPABASE_KEY=«sb_secret_Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3B»", "DD_API_KEY=«3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c2e»", "ADYEN_API_KEY=«AQEyhmfxLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp»"},
			[]string{"STRIPE_KEY=pk_live_51Hq8ZtLm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cQx", "STRIPE_SECRET_KEY=pk_test_51Hq8ZtLm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8",
				"POSTHOG_KEY=phc_Lq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm", "SUPABASE_KEY=sb_publishable_Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3B",
				"DD_CLIENT_TOKEN=pub3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c2e", "ADYEN_CLIENT_KEY=live_Q7XK2M9V4RT8WN3YB6PL5ZC1HJ0SD5GA"}},
		{"public-name: a name that says the value is published (publishable, public, site key, anon key, instrumentation key, Algolia search key); never with secret in it, never the framework's NEXT_PUBLIC_ alone",
			[]string{"RECAPTCHA_SECRET_KEY=«6LdQx7mK2pL9vR4tW8yZ1cF6hJ0sD5gA3eU7iO9r»", "ALGOLIA_ADMIN_API_KEY=«7c1e5a3b2d9f4e8ab6c01f4d8e2a9c75»",
				"NEXT_PUBLIC_OPENAI_KEY=«Kx7pQ2mZ9vL4rT8wN3yBRj5sWdHf6gTc»", "NUXT_PUBLIC_CLIENT_SECRET=«PYV9HPlYmI4ShnxIFBUTVfR6oCNjQv0M»", "PUBLIC_API_KEY=«Wd8Hf6gTc1uAe0iQ2mZ9vL4rT8wN3yBK»",
				"SEGMENT_PUBLIC_API_TOKEN=«sgp_cdflyaFIyqXPdciz5elrHNc3ZGWhsbhUd7wdzCJPqK5Hd6CihDplcB65hk65FwmM»"},
			[]string{"RECAPTCHA_SITE_KEY=6LdQx7mK2pL9vR4tW8yZ1cF6hJ0sD5gA3eU7iO9r", `<div class="h-captcha" data-sitekey="6LdQx7mK2pL9vR4tW8yZ1cF6hJ0sD5gA3eU7iO9r">`,
				"NEXT_PUBLIC_ALGOLIA_SEARCH_API_KEY=7c1e5a3b2d9f4e8ab6c01f4d8e2a9c75", "ALGOLIA_SEARCH_ONLY_API_KEY=7c1e5a3b2d9f4e8ab6c01f4d8e2a9c75",
				"NEXT_PUBLIC_TURNSTILE_SITE_KEY=0x4AAAAAAAtph3byT8_dUd", `"ApplicationInsights": { "InstrumentationKey": "69c530bb-9f16-4a7b-4516-13121a874b8c" }`,
				"SUPABASE_ANON_KEY=Kx7pQ2mZ9vL4rT8wN3yBRj5sWdHf6gTc", "DISCORD_PUBLIC_KEY=c5147cbc22566890c6d2830665db8e6fe7d0eddae692b616bc2476232eeb24a6"}},
		{"provider-value-key: a provider's rule leaves the value its key or SDK call says is public (OAuth client ids, app and base ids, Dropbox's and Pusher's app key, Mixpanel's project token)",
			[]string{"auth0: { domain: 'acme.eu.auth0.com', clientId: 'IVv3gYb3K1CSgICHn9w8qB8bPle6UnDf', clientSecret: '«Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr»' }",
				"TWITTER_CLIENT_SECRET=«Zk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2»", "DROPBOX_APP_SECRET=«q9xm2vr7tp4wn8c»", "LINKEDIN_CLIENT_SECRET=«Wn8cZk3BLq9Xm2Vr»",
				`const MessageBirdClientID = "«12345678-ABCD-ABCD-ABCD-1234567890AB»"`, `adobeClientId := "«35692e81730c0e3b1c21dbc7cf940621»"`,
				"PUSHER_APP_SECRET=«a5be5446d60426a1c262»", "MIXPANEL_API_SECRET=«d4f7774a53e931f4a5a282bacbaa3844»", "AUTH0_CLIENT_SECRET=«Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4»"},
			[]string{"auth0: { domain: 'acme.eu.auth0.com', clientId: 'IVv3gYb3K1CSgICHn9w8qB8bPle6UnDf', audience: 'https://api.acme.dev' }",
				"AUTH0_CLIENT_ID=JtPApWBhaY8qy366JVF78vDoMaOp3ks8", "TWITTER_CLIENT_ID=X7q2mK9pLw4tZsQ8nB1cD2eF3gH4", "LINKEDIN_CLIENT_ID=86x7q2mk9plw4t",
				"DROPBOX_APP_KEY=x7q2mk9plw4tzsq", "AIRTABLE_BASE_ID=appX7q2mK9pLw4tZs", "PLAID_CLIENT_ID=5f8e2c1a9b7d3e4f6a0c2b8d", "PUSHER_APP_KEY=03410fd6328fe14f3c1c", "const pusher = new Pusher('aa43299898d84bbadc4f', { cluster: 'eu' });",
				"mixpanel.init('890841af4ee84a9cafaad58b560b994b', {debug: false});", "MIXPANEL_PROJECT_TOKEN=d4f7774a53e931f4a5a282bacbaa3844"}},
		{"documented-example: the exact example credentials of RFCs and vendors' docs (jwt.io, RFC 6749/6750/7519/7617, Azurite, Key Uri Format)",
			[]string{"Authorization: Bearer «eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfOTQ4MiIsImlhdCI6MTc2NDIwMTYwMH0.Lq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BQx7»",
				"AccountName=acmeprod;AccountKey=«Xk3vB7nQ2mL9pR4tW8yZ1cF6hJ0sD5gA3eU7iO9rT2wQ4yV8bN6mK1lP5jH3gF7dS9aZ2xC4vB6nM8qW1eR5tY==»;",
				`{"access_token":"«Lq9Xm2Vr7Tp4Wn8cZk3BLq»","refresh_token":"«Wn8cZk3BLq9Xm2Vr7Tp4Qx»"}`, "Authorization: Basic «ZGVwbG95OlhxN3ZSMm1LOXBMdzR0WnM=»",
				"otpauth://totp/ACME:ana@example.org?secret=«KQ2MZ9VL4RT8WN3YB6PL5ZC1HJ0SD5GA»&issuer=ACME", "AKIAIOSFODNN7EXAMPLE is «AKIAIOSFODNN7EXAMPLE»"},
			[]string{"Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
				"AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;",
				`{"access_token":"2YotnFZFEjr1zCsicMWpAA","refresh_token":"tGzv3JOkF0XG5Qx2TlKWIA"}`, "Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==",
				"Authorization: Bearer mF_9.B5f-4.1JqM", "otpauth://totp/ACME:ana@example.org?secret=JBSWY3DPEHPK3PXP&issuer=ACME"}},
		{"request-tokens: a token that only names an attempt or a position (AWS IdempotencyToken, WAF ChangeToken, MongoDB resumeToken, a lock token); next to it a session token is one",
			[]string{`{"SessionToken": "«IQoJb3JpZ2luX2VjEHgaCXVzLWVhc3QtMSJHMEUCIQDx2vX8c1lL0c9ZpJ6bO5sD7wqk4M8y3QmYVtq8Zr0R2wIgQ6kz8V7rjN1Fh3u4M2cJb9uWc5y»", "Name": "nightly"}`,
				`{"auth_token": "«Lq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3B»"}`, `{"lock_password": "«Tz9Rp4Kc7Wq3Nx8Vb2»"}`},
			[]string{`{"IdempotencyToken": "3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c2e", "Name": "nightly"}`, `{"ChangeToken": "abcd12f2-46da-4fdb-b8d5-fbd4c466928f"}`,
				`{"resumeToken": "8263a5f1a2000000012b022c0100296e5a1004"}`, `{"lock_token": "2a9b64e8-c4c0-4b3f-85e0-d1e2b0c1f3a7"}`}},
		{"public-jwt: a JWT whose payload declares Supabase's anon role",
			[]string{"SUPABASE_SERVICE_ROLE_KEY=«eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6InFrem12dHB3cm5saHhkamNieWZhIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoyMDE1NTc2MDAwfQ.WWEOCV81K2LSnAwqRzZHb4gzQt8HQT0PMPSlWW0Sao-»"},
			[]string{"SUPABASE_KEY=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6InFrem12dHB3cm5saHhkamNieWZhIiwicm9sZSI6ImFub24iLCJpYXQiOjE3MDAwMDAwMDAsImV4cCI6MjAxNTU3NjAwMH0.zwZWdfRLgxL_Z1bvxbT7WrKL8ozFiA2auK7Z7GtQbU4", "const supabase = createClient('https://qkzmvtpwrnlhxdjcbyfa.supabase.co', 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZSIsInJlZiI6InFrem12dHB3cm5saHhkamNieWZhIiwicm9sZSI6ImFub24iLCJpYXQiOjE3MDAwMDAwMDAsImV4cCI6MjAxNTU3NjAwMH0.zwZWdfRLgxL_Z1bvxbT7WrKL8ozFiA2auK7Z7GtQbU4')"}},
		{"references: an Azure Key Vault reference, a keyword inside an ARN, a SealedSecret's encryptedData, MinIO's documented default, user:pass",
			[]string{`api_key = "«Tz9Rp4Kc7Wq3Nx8Vb2Lm6Xq»"`, "client_secret: «Xq7vR2mK9pLw4tZsQ8nB»", "stringData:\n  password: «Xq7vR2mK9pLw4tZs»",
				"spec:\n  template:\n    data:\n      password: «Xq7vR2mK9pLw4tZs»", "MINIO_ROOT_PASSWORD=«Lm6!Tz9#Rp4Kc7»", "git clone https://ana:«p4ss!Tz9Rp»@example.com/org/repo.git"},
			[]string{`api_key = "@Microsoft.KeyVault(VaultName=acme-kv;SecretName=api-key)"`, "arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-Xw9cPM",
				"spec:\n  encryptedData:\n    password: AgBy3i4OJSWK+PiTySYZZA9rO43cGDEq8tHbpYIpEn0Xm7TKYS0kPdD/WTT2RQ6TvqjA6F9gqeyD2w9KR4E1uIvQkZxLo6sVc6rK",
				"MINIO_ROOT_USER=minioadmin\nMINIO_ROOT_PASSWORD=minioadmin", "git clone https://user:pass@example.com/org/repo.git", "PASSWORD=pass"}},
	}
	for _, c := range cases {
		runClass(t, s, c.class, c.find, nil, c.leave)
	}
}

// runClass holds one class of non-secrets (a subtest named by the class's
// name, up to its colon): each secret marked «» in find is reported, each
// of keep that a text of find holds unmarked is not, and each text of
// leave comes out unchanged.
func runClass(t *testing.T, s *Scanner, class string, find, keep, leave []string) {
	t.Run(class[:strings.IndexByte(class, ':')], func(t *testing.T) {
		for _, in := range find {
			text, secrets := unmark(in)
			out := redactAll(s, text)
			for _, secret := range secrets {
				if strings.Contains(out, secret) {
					t.Errorf("missed %q in %q (got %q)", secret, text, out)
				}
			}
			for _, k := range keep {
				if strings.Contains(text, k) && !strings.Contains(out, k) && !slices.Contains(secrets, k) {
					t.Errorf("reported %q in %q (got %q)", k, text, out)
				}
			}
		}
		for _, text := range leave {
			if out := redactAll(s, text); out != text {
				t.Errorf("reported in a non-secret: %q", out)
			}
		}
	})
}
