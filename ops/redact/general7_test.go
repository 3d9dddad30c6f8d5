package redact

import (
	"strings"
	"testing"
)

// TestGeneral7EachPrinciple holds each principle of general7.go to cases it
// must find (the secret between « and ») and cases of the same context it
// must leave alone, other than the dev set's: a failing subtest names the
// principle that broke.
func TestGeneral7EachPrinciple(t *testing.T) {
	s := mustNew(t, Options{})
	cases := []struct {
		principle string
		find      []string // «secret» marks what must be reported
		leave     []string
	}{
		{"name-forms: R <-, Kotlin to, EDN keywords, tuples, setx, builders, .NET settings",
			[]string{`secret_key <- "«Zq8LmX2vR7tKp4Wn9YcB»"`, `.clientSecret('«p7XvLq2mZ9rTk4Wn8YcB3»')`, `Builder().withApiKey("«R4nd0mK3yV4lu3Xq7Lp»")`,
				`mapOf("client_secret" to "«7d1e9a4c2b8f6e3a5d0c»")`, `{:auth-token "«Vb8Nq3Lm7Xz2Rt5Kp9Wc»"}`, `{api_key, "«Jq2Wm8Xz4Vn7Lr3Tp6Kc»"}`,
				`os.getenv("DEPLOY_TOKEN", "«H3kq9ZxLm2Vr7Tp4Wn8c»")`, `setx /M ACME_SECRET «Kx7pQ2mZ9vL4rT8wN3yB»`,
				"<setting name=\"SigningSecret\" serializeAs=\"String\">\n<value>«q9Lm2XvR7tKp4Wn8YcB3z»</value>\n</setting>",
				`$ENV{DEPLOY_TOKEN} = '«Wm8Xz4Vn7Lr3Tp6KcJq2»';`, `<ClientSecret value="«Tp6KcJq2Wm8Xz4Vn7Lr3»" />`, `webhook_secret: !!str «Lr3Tp6KcJq2Wm8Xz4Vn7»`,
				"| client_secret | «Xz4Vn7Lr3Tp6KcJq2Wm8» |", `E1127 10:00:00.000 auth.go:42] rejected apikey "«Kc7Wq3Nx8Vb2Lm6Tz9Rp»" for tenant acme`},
			[]string{`secret_key <- Sys.getenv("SECRET_KEY")`, `.clientSecret(config.clientSecret)`, `.apiKey("")`, `mapOf("apiKey" to BuildConfig.KEY)`,
				`{:api-key nil}`, `{api_key, undefined}`, `os.getenv("DEPLOY_TOKEN", "")`, `setx ACME_SECRET %ACME_SECRET%`, `(get-in cfg [:token "name"])`,
				`logger.info("token", "refreshed for user")`, `cache.get("session_key", "default")`,
				"<setting name=\"SigningSecret\" serializeAs=\"String\">\n<value />\n</setting>",
				`u.User = url.UserPassword("aladdin", "opensesame")`, `$ENV{DEPLOY_TOKEN} = $token;`, `<ClientSecret value="" />`, `webhook_secret: !!str ""`,
				"| client_secret | the OAuth client's secret |", "| api_key | `<your key>` |", `the token "expired" was refused`, `set the api key "in the dashboard"`}},
		{"signing-calls: the key literal of a JWT or HMAC call",
			[]string{`jwt.decode(tok, "«Lq9Xm2Vr7Tp4Wn8cZk3B»", algorithms=["HS256"])`, `crypto.createHmac('sha256', '«Wn8cZk3BLq9Xm2Vr7Tp4»').update(body)`,
				`hash_hmac('sha256', $payload, '«Tp4Wn8cZk3BLq9Xm2Vr7»')`, `JWT.create().sign(Algorithm.HMAC256("«Xm2Vr7Tp4Wn8cZk3BLq9»"))`, `hmac.New(sha256.New, []byte("«Vr7Tp4Wn8cZk3BLq9Xm2»"))`},
			[]string{`jwt.decode(tok, key, algorithms=["HS256"])`, `crypto.createHmac('sha256', secret).update(body)`, `hash_hmac('sha256', $payload, $key)`,
				`jwt.sign({ sub: "user_8f3a9c2e7b1d", role: "admin" }, process.env.JWT_SECRET)`, `hmac.new(key, msg, "sha256")`}},
		{"structured-dumps: var_dump, name-then-value objects, Key/Value tables, secret ids, AWS text rows",
			[]string{"[\"db_password\"]=>\n  string(14) \"«Qx7!mK2#pL9v»\"", "\"jwt.secret\": {\n  \"value\": \"«Zk3BLq9Xm2Vr7Tp4Wn8c»\"\n}",
				"Key         Value\n---         -----\nsecret_key  «Lq9Xm2Vr7Tp4Wn8cZk3B»\nttl         768h",
				"KeyName    Permissions    Value\n---------  -------------  -----\nkey2       FULL           «Xk3vB7nQ2mL9pR4tW8yZ1cF6hJ0sD5gA3eU7iO9rT2wQ4yV8bN6mK1lP5jH3gF7dS9aZ2xC4vB6nM8==»",
				"SecretID:         «2b6f0cc8-9a7e-4b3d-8f1c-5e2d7a9b4c10»", "secret_id             «7c1e5a3b-2d9f-4e8a-b6c0-1f4d8e2a9c75»",
				"ACCESSKEY\tAKIAZ3MHX7QW4PLVT2KD\t2026-11-27T10:00:00Z\t«Q2mZ9vL4rT8wN3yBKx7pRj5s/Wd+Hf6gTc1uAe0i»\tActive\tci-user",
				`reg add HKCU\Software\Acme /v ClientSecret /t REG_SZ /d «Wq3Nx8Vb2Lm6Tz9RpKc7» /f`, "    ApiToken    REG_SZ    «Nx8Vb2Lm6Tz9RpKc7Wq3»",
				`{"value": "«Rk4Wn8cZk3BLq9Xm2Vr7Tp»", "id": "https://kv1.vault.azure.net/secrets/api-key/0a1b"}`},
			[]string{"[\"db_password\"]=>\n  NULL", "\"jwt.secret\": {\n  \"value\": \"******\"\n}",
				"Key                Value\n---                -----\nlease_duration     768h\nlease_renewable    true\nusername           v-approle-readonly",
				"AccessorID:       2b6f0cc8-9a7e-4b3d-8f1c-5e2d7a9b4c10", "secret_id_ttl         10m", "CREDENTIALS\tprofile-ci\t2026-11-27T10:00:00Z\t" + strings.Repeat("-", 40),
				`{"name": "color", "value": "blue"}`, `{"value": "", "id": "https://kv1.vault.azure.net/secrets/api-key/0a1b"}`, `reg add HKCU\Software\Acme /v InstallDir /t REG_SZ /d C:\Acme /f`, "    ApiToken    REG_SZ    %API_TOKEN%"}},
		{"ci-masked-values: a value a CI workflow command declares secret",
			[]string{"::add-mask::«Hq2Vn8Kx4Lm7Tz3RpWc9»", `echo "::set-output name=deploy_token::«Tz3RpWc9Hq2Vn8Kx4Lm7»"`,
				"##vso[task.setvariable variable=dbPassword;issecret=true]«Wc9!Hq2#Vn8»"},
			[]string{`echo "::add-mask::$TOKEN"`, "::add-mask::${{ steps.login.outputs.token }}", `echo "::set-output name=version::1.4.2"`,
				"##vso[task.setvariable variable=buildId]20261127.3"}},
		{"stdin-secret-stores: a literal fed to a command that stores a secret",
			[]string{`echo -n "«Vb2Lm6Tz9RpKc7Wq3Nx8»" | docker secret create api_key -`, `printf '%s' '«Lm6Tz9RpKc7Wq3Nx8Vb2»' | gh secret set DEPLOY_TOKEN`,
				`gcloud secrets versions add api-key --data-file=- <<< «Tz9RpKc7Wq3Nx8Vb2Lm6»`, `vercel env add API_KEY production <<< "«RpKc7Wq3Nx8Vb2Lm6Tz9»"`},
			[]string{`echo "$API_KEY" | docker secret create api_key -`, `gh secret set DEPLOY_TOKEN < token.txt`, `gcloud secrets versions add api-key --data-file=key.txt`,
				`echo "hello world" | docker secret create motd -`}},
		{"handed-credentials: a tool's message before a credential it made",
			[]string{"Using generated security password: «8e557245-73e2-4286-969a-ff57fe326336»", "Unseal Key 3: «k8Vq2mZ9vL4rT8wN3yBKx7pRj5sWd+Hf6gTc1uAe0iQ»",
				"[Note] A temporary password is generated for root@localhost: «w#8kQ;r7Lm2x»", "Token created: «Vn7Lr3Tp6KcJq2Wm8Xz4»", "Use this token to access the HTTP API:\n«6123456789:AAH3kq9Zx-Lm2Vr7Tp4Wn8cZk3BLq9Xm2Vr»", "Your API key is: «Jq2Wm8Xz4Vn7Lr3Tp6Kc»"},
			[]string{"Using generated security password: see the log above", "Unseal Key 3: <redacted>", "New value: (unchanged)",
				"A temporary password is generated for root@localhost: ********", "Token created: see `gh auth status`", "Your API key is: <hidden>"}},
		{"service-hooks: webhook URLs of chat and automation services, notification URLs",
			[]string{"https://open.feishu.cn/open-apis/bot/v2/hook/«2f6a8c1e-9b3d-4e7f-a5c0-8d1b4f2e6a93»", "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=«9e1c3a5b-7d2f-4b8e-a6c0-3f5d1e7b9a24»",
				"https://hook.us2.make.com/«q3k9zx7m2vl4rt8wn6yb1cf5hj0sd4ga»", "https://hooks.zapier.com/hooks/catch/4821937/«b7kq2zx»/",
				"https://«eo8c3f1a6d2b9e7c4a0f5d1b8e3c6a9».m.pipedream.net", "slack://«T4BQ9XZ2L»/«B07KJ3MNP8Q»/«Xk3vB7nQ2mL9pR4tW8yZ1cF6»",
				"tgram://«7234981056:AAG3kq9Zx-Lm2Vr7Tp4Wn8cZk3BLq9Xm2Vr»/-1002345678901",
				"https://api.flock.com/hooks/sendMessage/«5b7e2c1a-9d3f-4e8b-a6c0-2f4d1e7b9a35»", "https://alert.victorops.com/integrations/generic/20131114/alert/«8d2f4a6c-1e3b-4c5d-9f7a-0b2e4d6f8a1c»/prod-db"},
			[]string{"https://open.feishu.cn/open-apis/bot/v2/hook/xxxxxxxxxxxxxxxxx", "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=YOUR_KEY",
				"https://hook.eu1.make.com/<webhook-id>", "https://hooks.zapier.com/hooks/catch/123456/abcdef/", "https://pipedream.com/docs/workflows",
				"slack://TokenA/TokenB/TokenC", "tgram://bottoken/ChatID"}},
		{"sdk-keys: a messaging SDK's literals and its integration keys",
			[]string{`twilio.Client("AC0f3a9c2e7b1d5f4a8c6e2b9d1f7a3c5e", "«4c8e2a6f1b9d3e7a5c0f2b8d4e6a1c9f»")`, `plivo.RestClient('SAXKQ3M9ZV2LP7TR4WNB', '«Qm7vT2xK9pL4rW8nZ3yB6cF1hJ5sD0gA2eU7iO9»')`,
				`mandrill.Mandrill("«Zk3BLq9Xm2Vr7Tp4Wn8cQx»")`, "routing_key: «e3b7c1a9d5f2e8b4a6c0d9f1e7b3a5c8»", `"integration_key": "«0a9c2e7b1d5f4a8c6e2b9d1f7a3c5e4b»"`,
				"[api]\nemail=ci-bot@example.zulipchat.com\nkey=«Qm7vT2xK9pL4rW8nZ3yB6cF1hJ5sD0gA»\nsite=https://example.zulipchat.com"},
			[]string{`twilio.Client(account_sid, auth_token)`, `twilio.Client(account_sid, "+14155550100")`,
				"routing_key: logs.payments.error", `channel.basic_publish(exchange="", routing_key="task_queue", body=msg)`,
				"[api]\nemail=ci-bot@example.zulipchat.com\nkey=<your API key>\nsite=https://example.zulipchat.com", `bot.run(os.getenv("DISCORD_TOKEN"))`}},
		{"mail-passwords: sasl_passwd, fetchmail, offlineimap, password lines, app passwords",
			[]string{"[smtp.office365.com]:587 ops@example.com:«Qx7!mK2#pL9v»", "poll pop.example.org with proto POP3 user 'ops' there with password '«Lm2#xQ7!kP9v»'",
				"localpass = «Vr7!Tp4#Wn8c»", "account work\nhost smtp.example.org\npassword «Tp4#Wn8c!Vr7»", `SMTP_PASSWORD = "«xqzb mvtl kpwr jhnd»"`},
			[]string{"[smtp.office365.com]:587 ops@example.com:", "poll pop.example.org user 'ops' there with password ''", "remotepasseval = get_pass('work')",
				"remotepassfile = ~/.imap-pass", "password required for this account", "account work\npasswordeval \"pass show mail/work\"", `SMTP_PASSWORD = "correct horse battery"`}},
		{"converted-literals: a literal turned into bytes or a string type where it is assigned",
			[]string{`signingKey := []byte("«Kc7Wq3Nx8Vb2Lm6Tz9Rp»")`, `var secret = Encoding.UTF8.GetBytes("«Rp4Kc7Wq3Nx8Vb2Lm6Tz»");`,
				`new SymmetricSecurityKey(Encoding.UTF8.GetBytes("«Tz9Rp4Kc7Wq3Nx8Vb2Lm»"))`, `let api_key = String::from("«Nx8Vb2Lm6Tz9Rp4Kc7Wq»");`,
				`const secret = Buffer.from("«Vb2Lm6Tz9Rp4Kc7Wq3Nx»")`, `password = SecretStr("«Lm6!Tz9#Rp4»")`},
			[]string{`signingKey := []byte(os.Getenv("SIGNING_KEY"))`, `var body = Encoding.UTF8.GetBytes("{\"name\":\"ana\"}");`, `buf := []byte("hello, world")`,
				`let api_key = String::from("");`, `const data = Buffer.from("aGVsbG8=", "base64")`, `password = SecretStr("")`}},
		{"foreign-names: a secret's name in other languages, $pwd and cred",
			[]string{`contrasena = "«Kx9#mQ2!vLp»"`, `$kennwort = '«Tr4!mZ8#qLw»';`, `clave_api: "«Zk3BLq9Xm2Vr7Tp4Wn8c»"`, `$pwd = "«Qm7!vT2#xK9»"`, `segreto_app = "«Wn8cZk3BLq9Xm2Vr7Tp4»"`},
			[]string{`contrasena = input("Contraseña: ")`, `clave_primaria = "id_usuario"`, `$pwd = Get-Location`, `cd $pwd`, `cred = get_credentials()`, `clave_api = os.environ["CLAVE_API"]`}},
		{"value checks: signature digests, public names, sequential examples, slash-led keys",
			[]string{`secret_key_base: "«/Kq7mZ2vL9rT4wN8yB3cF6hJ1sD5gA0eU7iO9rT2wQ4yV8bN6m»"`},
			[]string{"X-Hub-Signature: sha1=" + strings.Repeat("9d8f", 10), "Stripe-Signature: t=1764237731,v1=" + strings.Repeat("5e1c", 16),
				"DISCORD_PUBLIC_KEY=" + strings.Repeat("c51d", 16), "kubeadm join 10.0.0.1:6443 --token abcdef.0123456789abcdef",
				`secret_key_base: "/usr/local/share/app/secret"`, `signing_key: "/etc/keys/signing.pem"`}},
	}
	for _, c := range cases {
		t.Run(c.principle[:strings.IndexByte(c.principle, ':')], func(t *testing.T) { findsAndLeaves(t, s, c.principle, c.find, c.leave) })
	}
}

// findsAndLeaves: every «marked» secret of find is redacted, and every text
// of leave comes out unchanged; errors name the class.
func findsAndLeaves(t *testing.T, s *Scanner, class string, find, leave []string) {
	t.Helper()
	for _, in := range find {
		text, secrets := unmark(in)
		out := redactAll(s, text)
		for _, secret := range secrets {
			if strings.Contains(out, secret) {
				t.Errorf("%s: missed %q in %q (got %q)", class, secret, text, out)
			}
		}
	}
	for _, text := range leave {
		if out := redactAll(s, text); out != text {
			t.Errorf("%s: reported in a non-secret: %q", class, out)
		}
	}
}

// unmark: the text without its «» marks, and the marked secrets.
func unmark(in string) (string, []string) {
	var b strings.Builder
	var secrets []string
	for {
		a := strings.Index(in, "«")
		if a < 0 {
			b.WriteString(in)
			return b.String(), secrets
		}
		z := strings.Index(in[a:], "»") + a
		b.WriteString(in[:a])
		secrets = append(secrets, in[a+len("«"):z])
		b.WriteString(in[a+len("«") : z])
		in = in[z+len("»"):]
	}
}
