package redact

import "testing"

// TestPrecision2EachClass holds each class of precision2.go (issue 31's
// false positives, second round; development set
// testdata/dev-precision2.txt) to non-secrets it must leave alone and to
// secrets of the same shape and context it must still report («» marks
// what must be reported; keep, what must survive in the same text).
func TestPrecision2EachClass(t *testing.T) {
	s := mustNew(t, Options{})
	const (
		ably   = "xVLyHw.DQeS8g:Lq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9"
		hex32  = "3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c2e"
		hex40  = "9fceb02d0ae598e95dc970b74767f19372d61af8"
		hex24  = "507f1f77bcf86cd799439011"
		kms    = "AQICAHhx9fZ3y8qYJzKz7cB3L0vR2mK9pLw4tZsQ8nB1cD2eF3gH4AHx9fZ3y8qYJzKz7cB3L0vR2mK9pLw4tZsQ8nB1cD2eF3gH4Lq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4"
		pkLive = "pk_prod_Kx7pQ2mZ9vL4rT8wN3yBRj5sWdHf6gTcLq9Xm2Vr"
	)
	cases := []struct {
		class string
		find  []string
		keep  []string // in the texts of find: not reported
		leave []string
	}{
		{"provider-name-part: a provider rule's name counts as a word or a name part (ABLY_KEY, ably.key, ablyKey, ABLYKEY, sonarqube), not inside a longer word",
			[]string{"ablyKey: '«" + ably + "»'", "ABLY_KEY=«" + ably + "»", "ably.key=«" + ably + "»", "ABLYKEY: «" + ably + "»", "new Ably.Realtime('«" + ably + "»')",
				"co = cohere.Client(\"«Kx7pQ2mZ9vL4rT8wN3yBRj5sWdHf6gTcKx7pQ2mZ»\")", "const linear = new LinearClient('«" + hex32 + "»')", "sonarqube «Kx7pQ2mZ9vL4rT8wN3yBRj5sWdHf6gTcKx7pQ2mZ»",
				"SUMOLOGIC: «Kx7pQ2mZ9vL4rT8wN3yBRj5sKx7pQ2mZ9vL4rT8wN3yBRj5sKx7pQ2mZ9vL4rT8w»"},
			nil,
			[]string{"It is probably " + ably, "Resize with bilinear interpolation (md5 " + hex32 + ")", "nonlinear: " + hex32, "The error grows linearly, see trace " + hex32,
				"fix incoherent cache reads (commit " + hex40 + ")", "coherence check passed at " + hex40, "onlooker_id: " + hex24, "Assigned to Betsy: " + hex24,
				"held steadfastly at revision " + hex32, "chest_xrays.tar.gz sha256 " + hex32 + hex32, "vaultwarden s.Kx7pQ2mZ9vL4rT8wN3yBRj5s", "git pushers a5be5446d60426a1c262"}},
		{"ambiguous-pk: pk_ is publishable by its name or its sibling sk_ key, private in Klaviyo's, Courier's and ClickUp's shapes or where Klaviyo is named",
			[]string{"klaviyo = KlaviyoAPI(\"«pk_6111a13bfd2841b5782af7a746b915b26a»\", max_retries=3)", "KLAVIYO_API_KEY=«pk_6111a13bfd2841b5782af7a746b915b26a»",
				"PUBLIC_API_KEY=«pk_6111a13bfd2841b5782af7a746b915b26a»", "COURIER_AUTH_TOKEN=«pk_test_Q7XK2M9V4RT8WN3YB6PL5ZC1HJ0S»", "CLICKUP_API_KEY=«pk_12345678_Q7XK2M9V4RT8WN3YB6PL5ZC1HJ0SD5GA»",
				"PUBLIC_API_KEY=«Wd8Hf6gTc1uAe0iQ2mZ9vL4rT8wN3yBK»", "LIVEBLOCKS_KEY=«" + pkLive + "»",
				"LIVEBLOCKS_KEY=" + pkLive + "\nLIVEBLOCKS_SECRET_KEY=«sk_prod_Lq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3B»"},
			[]string{pkLive},
			[]string{"const client = createClient({ publicApiKey: \"" + pkLive + "\" });", "PUBLIC_API_KEY=" + pkLive, "NEXT_PUBLIC_LIVEBLOCKS_PUBLIC_KEY=pk_dev_Kx7pQ2mZ9vL4rT8wN3yBRj5sWdHf6gTc",
				"liveblocks:\n  publishableKey: '" + pkLive + "'\n  secretKey: process.env.LIVEBLOCKS_SECRET_KEY", "const knock = new Knock(\"pk_test_Kx7pQ2mZ9vL4rT8wN3yBRj5sWdHf6gTc\");"}},
		{"browser-key: Segment's analytics.js write key, Algolia's search-only key, Rollbar's post_client_item token where the browser SDK is named; the same providers' server keys",
			[]string{"SEGMENT_WRITE_KEY=«kYtaMxiWFyaJxHMdTgDXiVZDT25HD6MS»", "import analytics\nanalytics.write_key = '«kYtaMxiWFyaJxHMdTgDXiVZDT25HD6MS»'",
				"const rollbar = new Rollbar({ accessToken: '«" + hex32 + "»', captureUncaught: true }); // post_server_item", "ROLLBAR_ACCESS_TOKEN=«" + hex32 + "»",
				"const client = algoliasearch('LATGZ0XKYP', '«" + hex32 + "»');\nawait client.saveObjects({ indexName: 'products', objects });",
				"// the search-only key is in the page\nALGOLIA_ADMIN_KEY=«" + hex32 + "»", "docsearch({ appId: 'R2IYF7ETH7', apiKey: 'x' });\n\nALGOLIA_API_KEY=«" + hex32 + "»"},
			nil,
			[]string{"const analytics = AnalyticsBrowser.load({ writeKey: 'kYtaMxiWFyaJxHMdTgDXiVZDT25HD6MS' });", "window.analyticsWriteKey = 'kYtaMxiWFyaJxHMdTgDXiVZDT25HD6MS';",
				"NEXT_PUBLIC_SEGMENT_WRITE_KEY=kYtaMxiWFyaJxHMdTgDXiVZDT25HD6MS", "var _rollbarConfig = {\n  accessToken: \"" + hex32 + "\",\n  captureUncaught: true\n};",
				"import { Provider } from '@rollbar/react';\nconst rollbarConfig = { accessToken: '" + hex32 + "', environment: 'production' };", "ROLLBAR_POST_CLIENT_ITEM_TOKEN=" + hex32,
				"import { liteClient as algoliasearch } from 'algoliasearch/lite';\nconst searchClient = algoliasearch('LATGZ0XKYP', '" + hex32 + "');",
				"docsearch({ appId: 'R2IYF7ETH7', apiKey: '" + hex32 + "', indexName: 'docs' });", "const client = liteClient('LATGZ0XKYP', '" + hex32 + "');"}},
		{"named-encrypted: a key service's ciphertext (AWS KMS, Google Cloud KMS, Vault transit) under a name that says encrypted; a hash under it, or a ciphertext under a plain name, is reported",
			[]string{"encrypted_password: «$2a$11$oz54Dohcls/QO9kPLnBf15MGaHW6OmydpRvSnib0AFqeVfTMmtI3L»", "encrypted_password: «Lq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9=»",
				"password: «" + kms + "»"},
			nil,
			[]string{"encrypted_password: " + kms, "\"EncryptedPassword\": \"" + kms + "\"", "encrypted_api_key: " + kms, "kms_encrypted_password: AQECAH" + kms[6:],
				"db_password_encrypted = \"CiQAl9Xm2Vr7Tp4Wn8cZk3BLq9Xm2Vr7Tp4Wn8cZk3BLq9Xm2VrSNwB3L0vR2mK9pLw4tZsQ8nB1cD2eF3gH4\"",
				"encrypted_password: vault:v1:8SDd3WHDOjf7mq69CyCqYjBXAiQQAVZRkFM13ok481zoCmHnSeDX9vyf7w=="}},
		{"properties-password: a Java properties line's password is a word as an .env file's is; not code",
			[]string{"jdbc.password=«wkqblvxhcfdg»", "spring.datasource.username=app\nspring.datasource.password=«jvqswdroar»\nspring.jpa.hibernate.ddl-auto=update", "mail.smtp.password=«kyvnorky»"},
			nil,
			[]string{"this.password=password;", "self.password=hashed", "user.password=hashed;", "jdbc.password=changeme", "jdbc.password=@jdbc.password@",
				"spring.datasource.password=${SPRING_DATASOURCE_PASSWORD}", "if (form.password=validate) {"}},
	}
	for _, c := range cases {
		runClass(t, s, c.class, c.find, c.keep, c.leave)
	}
}
