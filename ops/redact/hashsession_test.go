package redact

import (
	"strings"
	"testing"
)

// TestHashAndSessionEachPrinciple holds each principle of hashsession.go
// to cases it must find (the secret between « and ») and cases of the same
// context it must leave alone, other than the dev set's: a failing subtest
// names the principle that broke.
func TestHashAndSessionEachPrinciple(t *testing.T) {
	s := mustNew(t, Options{})
	cases := []struct {
		principle string
		find      []string // «secret» marks what must be reported
		leave     []string
	}{
		{"hash formats by the catalogue's prefixes (MCF ids, hashcat/John tags, MySQL 8)",
			[]string{"bob:«$3$$80d6b2e6e1b465e551305fd2d2490ca4»:1001:1001::/home/bob:/bin/sh",
				"«$krb5tgs$23$*web$EXAMPLE.ORG$http/web.example.org*$c616e8c4bf144d3334955d46af783b52$901a6ccaccdb251bce79793a67c9e2ed829af48d9d59ce6ca6b0b9658d7dbc036095e68de96039211d9b963cc58ea44ecd5b868ec5ff527e03af2a080ad8541c11a795e1d763f588b265b2344421c5b75a1ad69534f07c37e255eb8a1c095409993fd21b»",
				"cached: «$DCC2$10240#svc#5aaa1c87409cd75d167853d006459185»",
				"| app | «$A$005$Krx101aSpFzAF0G1Hijauok7Faw5t.Blue3z/MrYZ/qZGTVIOKbhvLS7t1UdVnd» |"},
			[]string{"hashcat -m 13100 roast.txt  # $krb5tgs$23$*user$realm$spn*$...", "The $DCC2$ format is hashcat mode 2100.", "$A$005$ marks caching_sha2_password."}},
		{"RFC 2307 / Dovecot / Atlassian {SCHEME} prefixes, the plaintext schemes' password",
			[]string{"userPassword: «{MD5}lMNuJgDupAmAZe/9+nISKg==»", "credential: «{PKCS5S2}ljtXbyF66pwXXoAoO7uSfDW32hlvnDPnzCwiebzlPyzXr0EqpoSszIHq3tmLEzw9»",
				"joe@example.org:«{CRAM-MD5}7dc278aaf6301d1a619588096b35bc4986e10b742c0bac74200567a820d3d2bf»", "ops@example.org:{PLAIN}«bj4Yxj5pQUtW»"},
			[]string{"olcPasswordHash: {SSHA}", "default_pass_scheme = CRAM-MD5", "password_format = {PLAIN}password", "Use {PKCS5S2} for Crowd."}},
		{"hash structures without a prefix: SQL Server, Oracle, Django legacy, secretsdump, NetNTLMv2, PIX, FortiOS",
			[]string{"sa  «0x02003872178A38976EE082C309FEDA739C628EFA20124D6D003A6630D95495D395DC32898583128FC49F69E885E946A47B27D40AC20D2DE3206279634895623A069CA1E8FB6B»",
				"spare4: «S:41A76DF5B5900B44D12A9B5A391AD65152FCDCBC836B42830BCA7398D444;T:90847D489DC2B0F7F2F9714E2B4B12060E6EF06174D54E9019117CBF49B41AB6D858F2CD89F05087505798ACBC58B504EE8FA5A41C4E63CADAA62277C57D7A25112FC68EA05DDA854FB4FEE5EF9EE3F1»",
				"('old', '«sha1$965rdMHWfA$cda1643d03464780b1161676605e8fbbba790e35»')",
				"example.org\\web:aes256-cts-hmac-sha1-96:«16c9ba5fa9ff0f082a30db05bbba8a8c57922f2263bca77148c50aa6c8f55014»", "dpapi_machinekey:«0x19bf4149b87a7178d32506afcb476de8d6e7916a»",
				"web::EXAMPLE:«e6315168d0225072:322208bb5ec1d5f6ea2b5991661a7e38:0101000000000000d6315f35645d282760ee88e4ebf73422574d909c5b1268b44fbe5ab768873f4f88e5690e80b0c4824c5b6403f3d9cf02eb7ba30357967f196ce81562»",
				"enable password «IuV1QY0kLIGo8QbH» encrypted", "set password ENC «SH2EWY/g0p5Mt2Py7tUlm7llppTuytyIr47JGh2e0DhX7FhWROegws2fYWtiAU»"},
			[]string{"mov ax, 0x0200", "S: 220 mail.example.org ESMTP", "sha1$ is Django's legacy prefix", "the password is stored encrypted", "set password ENC <hash>", "flags = 0x0100 | 0x0200"}},
		{"account lines: the hash field of shadow, passwd and master.passwd lines, markers left",
			[]string{"olduser:«xuXUbdPJevJ8X»:18500:0:99999:7:::", "legacy:«_J9..zZtvZR5UpIJ6mxD»:18200:0:99999:7:::", "alice:!«$y$j9T$y8nEZzZYsSJoj8E27/8wdG$mYdiEXlk4e2gLyRenI50Fq2vpPCQLuxe/1NDvLnPpzM»:19800:0:99999:7:::"},
			[]string{"root:x:0:0:root:/root:/bin/bash", "daemon:*:19000:0:99999:7:::", "guest:!!:19000::::::", "nobody:*LK*:6445::::::", "sshd:!*:19000:0:99999:7:::"}},
		{"a digest under a name that says password hash, as an assignment or a query result's column",
			[]string{`password_hash = "«ed162edf06727c547acb2f16dc40aa68b37f9ebc5021a9e11f559ca168fc162f»"`, `{"hashedPassword": "«hyc3KbfHeVQeeYAcc/+2mea8/5/4JQ7AhydkOtA5QeU=»"}`,
				"| id | password_digest |\n|----|-----------------|\n| 1  | «ed162edf06727c547acb2f16dc40aa68b37f9ebc5021a9e11f559ca168fc162f» |",
				"sqlite> select login, password, salt from user;\nadmin|«44088bf6ce93f1b74a004d0adcb72b5431bc1a984271932d393e744b3a8d26f5b8f305127be6ce56fa9e301ac87992412aa6»|Xk3pQ"},
			[]string{`file_hash = "ed162edf06727c547acb2f16dc40aa68b37f9ebc5021a9e11f559ca168fc162f"`, `"password_hash": null`, "password_hash VARCHAR(255) NOT NULL,",
				"| id | sha256 |\n|----|--------|\n| 1  | ed162edf06727c547acb2f16dc40aa68b37f9ebc5021a9e11f559ca168fc162f |", "SELECT password_hash FROM users;"}},
		{"a digest stored beside its salt",
			[]string{`{"value":"«Ljq2bvQsNQyVC7nNAFMH9G5yQrVeMYk5x2s/vdeURuWqO+PTG1bzDQC8FRObrZsM6tapZS45ipD3FtKYtuQ/WQ==»","salt":"kt9mjjA/hU/qQ8Uu7/mrBg=="}`},
			[]string{`{"name": "release", "value": "v1.2.3", "salt": "none"}`, `{"salt": "kt9mjjA/hU/qQ8Uu7/mrBg==", "iterations": 27500}`}},
		{"Redis ACL rules: #sha256 and >password",
			[]string{"user cache on «#ed48c6e9ce8bf7f4b6d8e999b68593919d6e3c5c3ee710f6131af7978ac333e5» ~cache:* +get", "ACL SETUSER jobs on >«44NjMqoAJji37gNt» ~jobs:* +@all"},
			[]string{"user default on nopass ~* &* +@all", "user reader off resetpass ~* +@read"}},
		{"login cookies by the catalogue's names, in headers, jars and objects; anti-forgery and analytics cookies left",
			[]string{"Cookie: wordpress_logged_in_0123456789abcdef0123456789abcdef=«editor%7C1767225600%7CiFkZpGVnAf2j4G1WIL18bdWEZLeeYUcnw75bMleQH2H%7C4f95ec30910201dc9ac34e3de641f08121c51c2a67b83801a4b0ef5e331c852e»",
				".example.org\tTRUE\t/\tTRUE\t1767225600\tsessionid\t«zmwubktpydd9h7uacjxtslxegiyrm9mr»",
				`"cookies": [{"name": "_gh_sess", "value": "«_1gmSy_TwsP2Bl1WQx0QMYddoktn6eDj4KAwUkliReI»", "domain": "github.com"}]`,
				`session.cookies.set("sessionid", "«zmwubktpydd9h7uacjxtslxegiyrm9mr»")`},
			[]string{"Cookie: csrftoken=zmwubktpydd9h7uacjxtslxegiyrm9mr; lang=en", "Set-Cookie: XSRF-TOKEN=_1gmSy_TwsP2Bl1WQx0QMYddoktn6eDj4KAwUkliReI; Path=/",
				"Cookie: _hjSessionUser_123=eyJpZCI6IjEyMyIsImNyZWF0ZWQiOjE3MDB9", ".example.org\tTRUE\t/\tFALSE\t1767225600\ttheme\tdark",
				`{"name": "sessionid", "value": ""}`, "xs = np.linspace(0, 1, 100)", `X-CSRFToken: zmwubktpydd9h7uacjxtslxegiyrm9mr`}},
		{"OAuth tokens by their issuers' prefixes, JWE, a token request's code",
			[]string{`{"kind": "rt", "v": "«0.AVYA-BQT1mpDyWwyxYORl30MfszANldey91CnaFOXEoBoag0Y6bHX2MY-sf3u1eTRCk-gMehCeyfK6Z7SOd4Iwavt6OLVqpC55rd1f41xOjIQJISposHrJTfeBFi90V28YmkJGMb45oCxxDmvF26ah1qBXnvzyRZ09Io34Vsu8XETEpezOnJthIEhSih6P5mbyBQGs-UOfG9»"}`,
				`{"kind": "at", "v": "«EwB4AAoQulq/1R6TDjBcNGOFQUNOO/Svjtdk3S7AsyLqXGENz1JPxugcxzoDIDc3ahvglFVzTsAurPhdrB4kdV8hjBnoVTBjSDHYa0c18+zzQrDjXWDAni+MCS4U5/S32s96ie/f82554ganrBqXQpB6R0VmONOTBwTJYam7dtr4wHACD9F4XVdPcLbqFX6mJXcBMp5SYquMBKDgNpjGXraxYPA»"}`,
				"?t=«IGQVJMYy8kqk_h14rgbcg3G-iz4BQ8d1d-guz3gtRYSw7T5OW4lNH0z4-PWiISpgseCbS0fso4XPJ0zokRA2qcHioZClW_vWP_XXOxzLXL_JS7hk13u2ZNS7Ocdtm8Vld97oEifOzNUxNa60hEa8LSUObQhmpG9ip6T_T»",
				"cached «AMf-vBWi3L-NTe-lle0F_ZDfGBCN5Z05IILNI4ji-nqxg14nFHGk0L7RaBJc1Mqts8ORBSLuJwvktZ5FzmXJSXC0HKly_NdMIxtYtZPtumW3UR3Ga1MFqncgGcO6jL3VEMXC4AJIuBzFzWhdCMAuRI681eoZ6WI8HFmWsc»",
				"GET /cb?code=«4/0AIhyWublPGe74ADJUj5IkjSCW4T5Z4emFhXGh1pUwI5Q-YKp4x8bF7QcfuWf3»&scope=email",
				`{"grant_type": "authorization_code", "code": "«8YAHYiOIVw0BNqMKm1LoCs5olkIzCbQvIFDxAH3UBvn»"}`,
				`{"identitytoken": "«u8pf87a3AB6ZTuNPxFz5UUJHBz19gtyp2s4iRM7MzQjbKe1hzL9MrkgnU8kmce5y»"}`,
				"refreshToken = «eyJjdHkiOiJKV1QiLCJlbmMiOiJBMjU2R0NNIiwiYWxnIjoiUlNBLU9BRVAifQ.VOCGALt67zJ1ZRwL_LGIDwu2fre1O6--Z0wKhJPQH91AOuDN2yjgKFo32FZiYIhLodlPXD97zf3IhVHjSAX9-XJ_02ZgsVWmK93wEMW8YkeWWQq-Y5hpUVFu4kq8TZVzRjqpXh8EHt0_OMcOlmVo6MJ8bmB1R18gged9ejwntPfp_ACd_cfV4_jRaCAtmYIc6pszpNaJxIiSTKpO92yTDd4D6AGrUZG765kz1bGxcN_HbDSZPVRsVxff9ocS0q4cof1t3fr98SeZwGC5RfNE8c_f2hu2GlbHuMqLFi-xRynJ7Giwv2ae0ex_kCeMaJzFvR0yhPKEmZqFfjz9SpSqyw.BHZ32nAN_zVdv_wL.YY8scZWhPY1Vx6t-seaegko0LB4oGhs89QBXmmSTJlDcux8SnYMiisRL9lWiJSKFSazxk0V9GGKl0EAC8IKr1PEocrP10UwESAKCd-z15htHt-hLJXFXBYjWBGLSK8UJxbHJqMrikQj3MtS2SrpUMBVO3FEfRiESn7ek8oGAV9As2iuwmemWe2xCG4-GNZhalvbjK5S3YGKRSrdUZIvTpbg3x60QyqSTXVqWFgsOa7iDKJYKUCwHRgiyvGnThM_XcAJbgtxVac6q8KK757rk-tVwhvteUGriJqXVcRwXmg0IzPBwcyROtbSRX68MEjq0PjkIkfiAzNXk6t5dcFxxvDZP1JNpv0JYeNXN9DiI-aBnOoV-y9gYKah3bvlZDULfNcmnTLl6O9m0iGi3BzdpCQkfM6I5bmGEwLNudNBW5r_gxM9BfAVl7MvZDHK-4N18B7AihvtUkgzIxVOR5D8ON2NlNjbt8ZFC2CUP2Ey9Pv8aHSJ0XrpBl4AfRKYVbKv1gqD9Hh0QwD8Eq7JPZIIyPQ.H04TeYV0o7sTG5IORtLVNg»"},
			[]string{"Python 3.10.0.Alpha", "EwBank is a bank", `{"grant_type": "authorization_code", "code": "<code>"}`, `{"code": "ERR_INVALID_GRANT_TYPE_1234", "message": "bad"}`,
				"user_code=WDJB-MJHT", `"identitytoken": ""`, "GET /cb?code=4/0A&scope=email"}},
	}
	for _, c := range cases {
		t.Run(c.principle, func(t *testing.T) {
			for _, in := range c.find {
				a, b := strings.Index(in, "«"), strings.Index(in, "»")
				text := in[:a] + in[a+len("«"):b] + in[b+len("»"):]
				secret := in[a+len("«") : b]
				out := redactAll(s, text)
				if strings.Contains(out, secret[len(secret)/3:2*len(secret)/3]) {
					t.Errorf("missed %q in %q (got %q)", secret, text, out)
				}
			}
			for _, text := range c.leave {
				if out := redactAll(s, text); out != text {
					t.Errorf("reported in a non-secret: %q", out)
				}
			}
		})
	}
}

// hashSessionPositives: a positive case for each rule id hashsession.go
// adds (TestEveryRuleHasAPositiveCase).
func hashSessionPositives(g gen) []posCase {
	return []posCase{
		{"azure-ad-refresh-token", `{"refresh_token": "%s"}`, "0.AVYA" + g.s(tB64url, 300)},
		{"microsoft-access-token", `"secret": "%s"`, "EwB4A" + g.s(tAlnum, 200)},
	}
}
