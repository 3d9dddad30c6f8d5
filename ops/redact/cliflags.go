package redact

import (
	"regexp"
	"strings"
)

// cliPasswordTools are command-line tools and the way their manuals say a
// password (or passphrase, or secret key) is given on the command line. One
// rule per line covers every tool of the line: the family is "a password
// in a tool's arguments", not one vendor. Each pattern starts at the tool's
// name (the anchor) and holds the password in group s.
var cliPasswordTools = []struct {
	tools []string // names (lower case); each is an anchor, followed by a blank
	re    string   // after the tool name
}{
	// -P PASSWORD (SQL Server tools, IPMI, zip, MQTT clients)
	{[]string{"sqlcmd", "bcp", "osql", "isql", "ipmitool", "zip", "unzip", "mosquitto_pub", "mosquitto_sub"},
		`[^\n|;&]*?[ \t]-P[ \t]+["']?(?P<s>[^\s"'-][^\s"']*)`},
	// -p PASSWORD (MongoDB tools, Cassandra's cqlsh, WinRM and SMB clients)
	{[]string{"mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport", "mongostat", "mongotop", "mongofiles",
		"cqlsh", "evil-winrm", "crackmapexec", "netexec", "nxc", "rdesktop"},
		`[^\n|;&]*?[ \t]-p[ \t]+["']?(?P<s>[^\s"'-][^\s"']*)`},
	// -w PASSWORD (OpenLDAP clients)
	{[]string{"ldapsearch", "ldapmodify", "ldapadd", "ldapdelete", "ldappasswd", "ldapwhoami", "ldapcompare", "ldapmodrdn", "ldapexop"},
		`[^\n|;&]*?[ \t]-w[ \t]+["']?(?P<s>[^\s"'-][^\s"']*)`},
	// -pPASSWORD glued (7-Zip, RAR), named with their command: "7z " alone
	// ends a thousand random tokens in a few MB of secret-dense text
	{[]string{"7z a", "7z x", "7z e", "7z u", "7z t", "7za a", "7za x", "7za e", "7zr a", "7zr x", "rar a", "rar x", "rar e", "unrar x", "unrar e"},
		`[^\n|;&]*?[ \t]-p(?P<s>[^\s"'-][^\s"']*)`},
	// -pw PASSWORD (PuTTY tools)
	{[]string{"plink", "pscp", "psftp"},
		`[^\n|;&]*?[ \t]-pw[ \t]+["']?(?P<s>[^\s"'-][^\s"']*)`},
	// keystore passwords (keytool, jarsigner)
	{[]string{"keytool", "jarsigner"},
		`[^\n|;&]*?[ \t]-(?:src|dest)?(?:storepass|keypass)[ \t]+["']?(?P<s>[^\s"'-][^\s"']*)`},
	// OpenSSL pass phrase arguments: -passin pass:X, -passout pass:X
	{[]string{"openssl"},
		`[^\n|;&]*?[ \t]-(?:passin|passout|pass|password|kpass)[ \t]+["']?pass:(?P<s>[^\s"']+)`},
	// openssl enc -k PASSWORD (the legacy pass phrase argument)
	{[]string{"openssl enc", "openssl aes-128-cbc", "openssl aes-256-cbc", "openssl des3"},
		`[^\n|;&]*?[ \t]-k[ \t]+["']?(?P<s>[^\s"'-][^\s"']*)`},
	// FreeRDP: /p:PASSWORD
	{[]string{"xfreerdp", "wlfreerdp", "sdl-freerdp", "freerdp"},
		`[^\n|;&]*?[ \t]/p:["']?(?P<s>[^\s"']+)`},
	// Samba clients: -U user%PASSWORD, --user=user%PASSWORD
	{[]string{"smbclient", "rpcclient", "smbget", "smbcacls", "smbmap", "smbcquotas", "net rpc", "winexe"},
		`[^\n|;&]*?[ \t](?:-U[ \t]*|--user(?:name)?[= \t])["']?[^\s%"']+%(?P<s>[^\s"']+)`},
	// htpasswd -b FILE USER PASSWORD
	{[]string{"htpasswd"},
		`[ \t]+-[a-zA-Z]*b[a-zA-Z]*[ \t]+(?:-[a-zA-Z]+[ \t]+)*[^\s-]\S*[ \t]+[^\s-]\S*[ \t]+["']?(?P<s>[^\s"']+)`},
	// net use [X:] \\server\share PASSWORD /user:U; net use … /user:U PASSWORD; net user NAME PASSWORD /add
	{[]string{"net use"},
		`[ \t]+(?:[A-Za-z]:[ \t]+)?\\\\\S+[ \t]+(?:/user:\S+[ \t]+)?(?P<s>[^\s/*"][^\s"]*)`},
	{[]string{"net user"},
		`[ \t]+\S+[ \t]+(?P<s>[^\s/*"][^\s"]*)[ \t]+/add`},
	// rabbitmqctl add_user USER PASSWORD, change_password USER PASSWORD
	{[]string{"rabbitmqctl"},
		`[ \t]+(?:-[a-z]+[ \t]+\S+[ \t]+)*(?:add_user|change_password)[ \t]+\S+[ \t]+["']?(?P<s>[^\s"']+)`},
	// Oracle tools: sqlplus USER/PASSWORD@DB
	{[]string{"sqlplus", "rman", "expdp", "impdp", "sqlldr"},
		`[ \t]+(?:-[A-Za-z]+[ \t]+)*["']?[A-Za-z][\w$#]*/(?P<s>[^\s@/"']+)@`},
	// MinIO client: mc alias set NAME URL ACCESS_KEY SECRET_KEY
	{[]string{"mc alias set", "mc config host add"},
		`[ \t]+\S+[ \t]+\S+[ \t]+\S+[ \t]+["']?(?P<s>[^\s"']+)`},
	// Windows: schtasks … /rp PASSWORD, cmdkey … /pass:PASSWORD
	{[]string{"schtasks"},
		`[^\n|;&]*?[ \t]/rp[ \t]+["']?(?P<s>[^\s"'/*][^\s"']*)`},
	{[]string{"cmdkey"},
		`[^\n|;&]*?[ \t]/pass:["']?(?P<s>[^\s"']+)`},
	// ssh-keygen … -N NEW_PASSPHRASE / -P OLD_PASSPHRASE
	{[]string{"ssh-keygen"},
		`[^\n|;&]*?[ \t]-[NP][ \t]+["']?(?P<s>[^\s"'-][^\s"']*)`},
	// PowerShell: ConvertTo-SecureString "PASSWORD" -AsPlainText
	{[]string{"convertto-securestring"},
		`[ \t]+(?:-String[ \t]+)?["'](?P<s>[^"'\n]+)["'][ \t]+-AsPlainText`},
}

// cliPasswordRules compiles cliPasswordTools.
func cliPasswordRules() []*Rule {
	var rules []*Rule
	for _, t := range cliPasswordTools {
		var names, anchors []string
		for _, n := range t.tools {
			names = append(names, regexp.QuoteMeta(n))
			anchors = append(anchors, n+" ")
		}
		rules = append(rules, &Rule{ID: "cli-password", Anchors: anchors, Fold: true, After: 300, Priority: prioContext,
			Re:    regexp.MustCompile(`(?i:` + strings.Join(names, "|") + `)(?:\.exe)?` + t.re),
			Check: checkCLIPassword})
	}
	// echo PASSWORD | kinit / sudo -S / passwd --stdin / chpasswd: a
	// password piped into a program that reads one
	rules = append(rules, &Rule{ID: "cli-password", Anchors: []string{"kinit", "sudo -s", "--stdin", "chpasswd"}, Fold: true, Before: 300, After: 1, Priority: prioContext,
		Re:    regexp.MustCompile(`\b(?:echo|printf)[ \t]+(?:-n[ \t]+)?["']?(?:[\w.-]+:)?(?P<s>[^\s"'$|%:]+)["']?[ \t]*\|[ \t]*(?:sudo[ \t]+)?(?:kinit|sudo[ \t]+-S|passwd[ \t]+--stdin|chpasswd)\b`),
		Check: checkCLIPassword})
	return rules
}
