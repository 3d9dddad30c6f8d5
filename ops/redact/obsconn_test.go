package redact

import (
	"strings"
	"testing"
)

// TestObsConnEachClass holds each class of obsconn.go to cases it must find
// (the secret between « and ») and cases of the same context it must leave
// alone, other than the dev set's: a failing subtest names the class that
// broke.
func TestObsConnEachClass(t *testing.T) {
	s := mustNew(t, Options{})
	cases := []struct {
		class string
		find  []string
		leave []string
	}{
		{"vendor-names: a vendor's own name for its credential",
			[]string{`OTEL_EXPORTER_OTLP_HEADERS="x-honeycomb-team=«Qz8Lm2Vr7Tp4Wn8cZk3BLq»,x-honeycomb-dataset=web"`,
				`headers = {"x-honeycomb-team": "«Wn8cZk3BLq9Xm2Vr7Tp4Kc»"}`,
				"libhoney.init({\n  // honeycomb\n  writeKey: \"«b7e2c1a99d3f4e8ba6c02f4d1e7b9a35»\",\n  dataset: \"api\"\n})",
				"curl 'https://stats.example.org/index.php?module=API&method=API.get&token_auth=«5c9e2a7f1b3d8e6a4c0f2b9d7e1a3c5f»&format=json'",
				`Flagsmith(environment_key='ser.«Kq7mZ2vL9rT4wN8yB3cF6h»')`,
				"ldap_default_authtok = «Vr7#Tp4!Wn8cZk3»",
				"    Cloud_Auth  elastic:«Tp4Wn8cZk3BLq9Xm2Vr7»", `cloud.auth: "ingest_writer:«Lq9Xm2Vr7Tp4Wn8c»"`,
				"      - NEO4J_AUTH=neo4j/«Zk3BLq9Xm2Vr»",
				"UPTRACE_DSN=https://«Xm2Vr7Tp4Wn8cZk3BLq9»@api.uptrace.dev?grpc=4317"},
			[]string{`OTEL_EXPORTER_OTLP_HEADERS="x-honeycomb-team=${HONEYCOMB_API_KEY}"`, `headers = {"x-honeycomb-team": os.environ["HONEYCOMB_KEY"]}`,
				"token_auth=anonymous", "ldap_default_authtok_type = obfuscated_password",
				"    Cloud_Auth  ${ES_CLOUD_AUTH}", `cloud.auth: "elastic:<password>"`, "NEO4J_AUTH=none",
				"UPTRACE_DSN=https://api.uptrace.dev?grpc=4317"}},
		{"ingest-urls: a log service's ingest token in its URL's path",
			[]string{"https://logs-01.loggly.com/inputs/«4f2c8a1e-7b3d-4e9f-a5c0-6d1b8e2f4a73»/tag/http/",
				"curl -X POST https://endpoint2.collection.eu.sumologic.com/receiver/v1/http/«ZaVnC4dhaV2bQ7xK9pL4rW8nZ3yB6cF1hJ5sD0gA2eU7iO9rT2wQ4yV8bN6m==»",
				`$template LogglyFormat,"<%pri%>%protocol-version% %timestamp% %HOSTNAME% %app-name% - - [«9d3f4e8b-a6c0-4f4d-8e7b-1a35b7e2c1a9»@41058 tag=\"prod\"] %msg%\n"`},
			[]string{"https://www.loggly.com/docs/http-endpoint/ lists /inputs/TOKEN/tag/http/",
				"https://github.com/acme/app/inputs/4f2c8a1e-7b3d-4e9f-a5c0-6d1b8e2f4a73/tag",
				"https://endpoint2.collection.eu.sumologic.com/receiver/v1/http/",
				"Private enterprise number 41058 is Loggly's; [meta@41058 tag=\"x\"]"}},
		{"credential-pairs: user and password as a pair no URL reader sees",
			[]string{`db, _ := sql.Open("mysql", "svc:«Lm2Vr7Tp4Wn8c»@tcp(db.internal:3306)/orders?tls=true")`,
				"DSN=app:«Qx7!mK2#pL9v»@unix(/var/run/mysqld/mysqld.sock)/app",
				`url: "jdbc:oracle:thin:app_owner/«Wn8cZk3BLq»@//ora02:1521/SALES"`,
				"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Basic%20«" + b64("314159:glc_eyJvIjoiMTIzNCIsIm4iOiJvdGVsIiwiayI6Ilpr") + "»"},
			[]string{`dsn := fmt.Sprintf("%s:%s@tcp(%s)/%s", user, pass, host, db)`, `"root@tcp(127.0.0.1:3306)/app"`,
				"jdbc:oracle:thin:@//ora02:1521/SALES", "jdbc:oracle:thin:app_owner/${ORACLE_PASSWORD}@//ora02:1521/SALES",
				"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Basic%20${GRAFANA_OTLP_AUTH}"}},
		{"conn-keywords: a connection string's password keyword holds a literal",
			[]string{`"Reporting": "Data Source=rpt01;Initial Catalog=Rpt;User Id=rpt;Password=«kWqZtRbLmXnPvYsD»;Encrypt=True"`,
				"Driver={SQL Server};Server=sql03;Uid=etl;Pwd=«hTrKqWmZxLbN»;"},
			[]string{"Data Source=rpt01;Initial Catalog=Rpt;User Id=rpt;Password={0};", "Server=sql03;Uid=etl;Pwd=********;",
				"Server=sql03;Uid=etl;Pwd=$(SQL_PASSWORD);", "Data Source=rpt01;User Id=rpt;Password=password;", "Server=sql03;Database=x;Password=;",
				"Server=myServerAddress;Database=myDataBase;User Id=myUsername;Password=myPassword;", "Server=localhost,1433;Database=master;User Id=sa;Password=yourStrong(!)Password;"}},
		{"driver-args: a driver's constructor given the password as a literal",
			[]string{`$db = new PDO("pgsql:host=pg02;dbname=crm", "crm", "«Vr7Tp4Wn8cZk»");`,
				`const db = new Sequelize('crm', 'crm', '«Tp4Wn8cZk3BL»', { dialect: 'postgres' })`,
				`$link = mysqli_connect("127.0.0.1", "wp", "«Zk3#BLq9!Xm2»", "wordpress");`,
				`conn = pymysql.connect("db02", "report", "«Xm2Vr7Tp4Wn8»", "sales")`,
				"cypher-shell -a neo4j://graph01:7687 -u neo4j -p «Lq9Xm2Vr7Tp4» 'MATCH (n) RETURN count(n)'"},
			[]string{`$db = new PDO($dsn, $user, $pass);`, `$db = new PDO("sqlite:/var/db/app.sqlite");`,
				`const db = new Sequelize('crm', 'crm', process.env.DB_PASS, { dialect: 'postgres' })`,
				`$link = mysqli_connect("127.0.0.1", "wp", "", "wordpress");`, `conn = pymysql.connect(host, user, password, db)`,
				"cypher-shell -a neo4j://graph01:7687 -u neo4j -p $NEO4J_PASSWORD"}},
		{"key-seeds: key material named by its role",
			[]string{"ED25519_SEED=«9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08»",
				`node_key_seed: "«3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b»"`,
				`const kp = nacl.sign.keyPair.fromSeed(Buffer.from("«2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae»", "hex"))`,
				"echo '«yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=»' | wg pubkey"},
			[]string{"random_seed = 42", "SEED_DATA=true", "seed: 1337", "rails db:seed", "cat /etc/wireguard/privatekey | wg pubkey",
				"ED25519_SEED=0000000000000000000000000000000000000000000000000000000000000000",
				"wg genkey | tee privatekey | wg pubkey > publickey"}},
	}
	for _, c := range cases {
		t.Run(c.class[:strings.IndexByte(c.class, ':')], func(t *testing.T) { findsAndLeaves(t, s, c.class, c.find, c.leave) })
	}
}
