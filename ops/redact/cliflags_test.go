package redact

import (
	"strings"
	"testing"
)

// TestCLIPasswordEveryTool: every line of cliPasswordTools finds the
// password its tools' manuals place on the command line, and none takes a
// variable or a placeholder there. A failure names the tool.
func TestCLIPasswordEveryTool(t *testing.T) {
	s := mustNew(t, Options{})
	const pw = "Zq8vLw3mNp2x"
	cases := map[string]string{ // tool -> command line, PW where the password goes
		"sqlcmd":                 `sqlcmd -S db1 -U sa -P PW -i init.sql`,
		"mosquitto_pub":          `mosquitto_pub -h broker -u dev -P PW -t t -m hi`,
		"mongodump":              `mongodump --host m1 -u bk -p PW --out /bk`,
		"cqlsh":                  `cqlsh 10.0.0.3 -u cassandra -p PW`,
		"ldapsearch":             `ldapsearch -x -D "cn=admin,dc=corp" -w PW -b dc=corp`,
		"7z":                     `7z x -pPW secret.7z`,
		"plink":                  `plink -ssh root@10.0.0.4 -pw PW uptime`,
		"keytool":                `keytool -list -keystore ks.jks -storepass PW`,
		"openssl":                `openssl rsa -in k.pem -passin pass:PW -out plain.pem`,
		"xfreerdp":               `xfreerdp /v:host /u:admin /p:PW`,
		"smbclient":              `smbclient -L //fs1 -U admin%PW`,
		"htpasswd":               `htpasswd -cb .htpasswd admin PW`,
		"net use":                `net use \\fs1\share PW /user:CORP\admin`,
		"net user":               `net user backup PW /add`,
		"rabbitmqctl":            `rabbitmqctl change_password admin PW`,
		"sqlplus":                `sqlplus -S scott/PW@//db:1521/ORCL`,
		"mc alias set":           `mc alias set s3 https://minio:9000 minioadmin PW`,
		"schtasks":               `schtasks /create /tn bk /tr bk.cmd /ru CORP\svc /rp PW`,
		"cmdkey":                 `cmdkey /add:srv1 /user:admin /pass:PW`,
		"ssh-keygen":             `ssh-keygen -t ed25519 -N PW -f id`,
		"convertto-securestring": `$pw = ConvertTo-SecureString "PW" -AsPlainText -Force`,
		"kinit":                  `echo "PW" | kinit admin@CORP`,
		"sudo -S":                `echo PW | sudo -S apt update`,
	}
	for tool, line := range cases {
		t.Run(tool, func(t *testing.T) {
			text := strings.Replace(line, "PW", pw, 1)
			if out := redactAll(s, text); strings.Contains(out, pw) {
				t.Errorf("%s: the password survives: %q", tool, out)
			}
			for _, ref := range []string{"$DB_PASSWORD", "<password>", "%PASSWORD%"} {
				neg := strings.Replace(line, "PW", ref, 1)
				if out := redactAll(s, neg); strings.Contains(out, "cli-password") {
					t.Errorf("%s: a reference %s is reported: %q", tool, ref, out)
				}
			}
		})
	}
	for _, neg := range []string{"zip -r backup.zip src", "mysql -u root -p shop", "net use Z: \\\\fs1\\share /persistent:yes", "7z a -t7z out.7z dir"} {
		if out := redactAll(s, neg); out != neg {
			t.Errorf("no password in %q, but %q", neg, out)
		}
	}
}
