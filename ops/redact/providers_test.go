package redact

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// provCase: a positive (text with %s where the secret goes) and a negative
// for one provider rule.
type provCase struct {
	rule, text, secret, neg string
}

func providerCases(g gen) []provCase {
	uuid := func() string {
		h := g.s(tHex, 32)
		return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
	}
	lowAl := "abcdefghijklmnopqrstuvwxyz0123456789"
	upAl := "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	p := func(rule, text, secret, neg string) provCase { return provCase{rule, text, secret, neg} }
	return []provCase{
		// literal prefixes
		p("onepassword-secret-key", "secret key: %s", "A3-"+g.s(upAl, 6)+"-"+g.s(upAl, 11)+"-"+g.s(upAl, 5)+"-"+g.s(upAl, 5)+"-"+g.s(upAl, 5), "A3-XXXXXX-XXXXXXXXXXX-XXXXX-XXXXX-XXXXX"),
		p("adobe-client-secret", `ADOBE_CLIENT_SECRET="%s"`, "p8e-"+g.s(tAlnum, 32), "see p8e-short"),
		p("airtable-pat", "AIRTABLE=%s", "pat"+g.s(tAlnum, 14)+"."+g.s(tHex, 64), "the path pattern patXYZ.abc"),
		p("artifactory-api-key", "%s", "AKCp"+g.s(tAlnum, 69), "AKCp8 is a prefix"),
		p("artifactory-reference-token", "token: %s", "cmVmd"+g.s(tAlnum, 59), "cmVmdGVzdA=="),
		p("authress-service-client-key", "%s", "sc_"+g.s(lowAl, 12)+"."+g.s(lowAl, 5)+".acc_"+g.s(lowAl, 20)+"."+g.s(tB64, 60), "sc_x.acc_y.z"),
		p("bitbucket-app-password", "BITBUCKET_APP_PASSWORD=%s", "ATBB"+g.s(tAlnum, 32), "ATBBXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"),
		p("clickhouse-api-secret", "%s", "4b1d"+g.s(tAlnum, 38), "sha 4b1d9f0e8c7b6a5d4c3b2a19f8e7d6c5b4a39281 done"),
		p("crates-io-token", "CARGO_REGISTRY_TOKEN=%s", "cio"+g.s(tAlnum, 32), "the social precious specious"),
		p("defined-networking-token", "%s", "dnkey-"+g.s(upAl, 26)+"-"+g.s(upAl, 52), "dnkey-short"),
		p("deno-token", "DENO_DEPLOY_TOKEN=%s", "ddp_"+g.s(tAlnum, 36), "ddp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
		p("dropbox-api-token", "%s", "sl."+g.s(tB64url, 135), "see sl. for the docs"),
		p("dropbox-api-token", "DROPBOX_TOKEN=%s", g.s(lowAl, 11)+"AAAAAAAAAA"+g.s(tAlnum, 43), "dropbox sync finished"),
		p("duffel-api-token", "%s", "duffel_test_"+g.s(tAlnum, 43), "duffel_test_xxxxxxxx"),
		p("elevenlabs-api-key", "%s", "sk_"+g.s(tHex, 48), "sk_live_ is the stripe prefix"),
		p("elevenlabs-api-key", "ELEVENLABS_API_KEY=%s", g.s(tHex, 32), "elevenlabs voice id"),
		p("facebook-access-token", "%s", "EAAB"+g.s(tAlnum, 150), "EAABwzLixnjYBAxyz"),
		p("flutterwave-public-key", "%s", "FLWPUBK_TEST-"+g.s(tHex, 32)+"-X", "FLWPUBK_TEST-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx-X"),
		p("frameio-api-token", "%s", "fio-u-"+g.s(tB64url, 64), "fio-u-short"),
		p("gitlab-feature-flag-client-token", "%s", "glffct-"+g.s(tB64url, 20), "glffct-xxxxxxxxxxxxxxxxxxxx"),
		p("gitlab-incoming-mail-token", "%s", "glimt-"+g.s(tB64url, 25), "glimt-xxxxxxxxxxxxxxxxxxxxxxxxx"),
		p("gitlab-scim-token", "%s", "glsoat-"+g.s(tB64url, 20), "glsoat-xxxxxxxxxxxxxxxxxxxx"),
		p("gitlab-session-cookie", "Cookie: _gitlab_session=%s", g.s(lowAl, 32), "_gitlab_session=<cookie>"),
		p("google-oauth-refresh-token", `{"refresh_token": "%s"}`, "1//0"+g.s(tB64url, 99), "http://host//0/x"),
		p("aws-bedrock-api-key", "AWS_BEARER_TOKEN_BEDROCK=%s", "ABSK"+g.s(tB64, 120)+"=", "ABSKxxxx"),
		p("grafana-api-key", "%s", "eyJrIjoi"+g.s(tAlnum, 90), "eyJrIjoi"),
		p("harness-api-key", "%s", "pat."+g.s(tB64url, 22)+"."+g.s(tAlnum, 24)+"."+g.s(tAlnum, 20), "pat.get(x)"),
		p("hubspot-private-app-token", "%s", "pat-na1-"+uuid(), "pat-na1-<token>"),
		p("infracost-api-token", "INFRACOST_API_KEY=%s", "ico-"+g.s(tAlnum, 32), "favico-"+g.s(tAlnum, 32)),
		p("intra42-client-secret", "%s", "s-s4t2ud-"+g.s(tHex, 64), "s-s4t2ud-xxxx"),
		p("launchdarkly-access-token", "%s", "api-"+uuid(), "api-gateway-v2"),
		p("launchdarkly-access-token", "LAUNCHDARKLY_ACCESS_TOKEN=%s", g.s(tB64url, 40), "launchdarkly flags"),
		p("lob-api-key", "%s", "live_"+g.s(tHex, 35), "test_handles_live_updates"),
		p("mailgun-pub-key", "%s", "pubkey-"+g.s(tHex, 32), "pubkey-xxxxxxxx"),
		p("mapbox-api-token", "%s", "pk.eyJ"+g.s(tB64url, 60)+"."+g.s(tB64url, 22), "pk.eyJ"),
		p("maxmind-license-key", "%s", g.s(tAlnum, 6)+"_"+g.s(tAlnum, 29)+"_mmk", "the_mmk_suffix"),
		p("microsoft-teams-webhook", "https://acme.webhook.office.com/webhookb2/%s", uuid()+"@"+uuid()+"/IncomingWebhook/"+g.s(tHex, 32)+"/"+uuid(), "https://acme.webhook.office.com/webhookb2/"),
		p("newrelic-browser-api-token", "%s", "NRJS-"+g.s(tHex, 19), "NRJS-x"),
		p("nuget-api-key", "NUGET_API_KEY=%s", "oy2"+g.s(lowAl, 43), "oy2 is short"),
		p("octopus-deploy-api-key", "%s", "API-"+g.s(upAl, 26), "API-GATEWAY-ENDPOINT-CONFIGURATION"),
		p("openshift-user-token", "oc login --token=%s", "sha256~"+g.s(tB64url, 43), "sha256~abc"),
		p("plaid-access-token", "%s", "access-sandbox-"+uuid(), "access-sandbox-token"),
		p("razorpay-key", "%s", "rzp_live_"+g.s(tAlnum, 14), "rzp_live_x"),
		p("readme-api-token", "%s", "rdme_"+g.s(lowAl, 70), "rdme_short"),
		p("salesforce-access-token", "%s", "00D"+g.s(tAlnum, 15)+"!"+g.s(tAlnum+".", 100), "00D is a prefix"),
		p("scalingo-api-token", "%s", "tk-us-"+g.s(tB64url, 48), "tk-us-east"),
		p("scaleway-access-key", "SCW_ACCESS_KEY=%s", "SCW"+g.s(upAl, 17), "SCWXXXXXXXXXXXXXXXXX"),
		p("sendinblue-api-key", "%s", "xkeysib-"+g.s(tHex, 64)+"-"+g.s(tAlnum, 16), "xkeysib-short"),
		p("settlemint-token", "%s", "sm_pat_"+g.s(tAlnum, 16), "sm_pat_x"),
		p("sonarqube-token", "SONAR_TOKEN=%s", "sqp_"+g.s(tHex, 40), "sqp_x"),
		p("tailscale-key", "%s", "tskey-auth-"+g.s(tAlnum, 12)+"-"+g.s(tAlnum, 32), "tskey-auth-x"),
		p("yandex-api-key", "%s", "AQVN"+g.s(tB64url, 36), "AQVN"),
		p("clickup-api-token", "%s", "pk_"+g.s(tDig, 8)+"_"+g.s(upAl, 32), "pk_live_xyz"),
		p("twilio-api-key", "%s", "SK"+g.s(tHex, 32), "SKIP_TESTS=1"),
		p("sidekiq-secret", "BUNDLE_ENTERPRISE__CONTRIBSYS__COM=%s", g.s(tHex, 8)+":"+g.s(tHex, 8), "BUNDLE_GEMS__CONTRIBSYS__COM=${SIDEKIQ}"),
		// provider name in front of the value
		p("adafruit-api-key", "ADAFRUIT_IO_KEY=%s", g.s(tB64url, 32), "adafruit feather board"),
		p("adobe-client-id", `adobeClientId := "%s"`, g.s(tHex, 32), "adobe reader 11"),
		p("airtable-api-key", "airtable_api_key: %s", "key"+g.s(tAlnum, 14), "airtable base"),
		p("algolia-api-key", `ALGOLIA_ADMIN_KEY="%s"`, g.s(tAlnum, 32), "ALGOLIA_ADMIN_KEY=${ALGOLIA_KEY}"),
		p("alibaba-secret-key", "alibaba_secret_key = %s", g.s(tAlnum, 30), "alibaba cloud region"),
		p("asana-token", "ASANA_TOKEN=%s", "1/"+g.s(tDig, 16)+":"+g.s(tAlnum, 32), "asana task 1203456789012345"),
		p("atlassian-api-token", "JIRA_API_TOKEN=%s", g.s(tAlnum, 24), "JIRA_API_TOKEN=your-token"),
		p("beamer-api-token", "BEAMER_TOKEN=%s", "b_"+g.s(tB64url, 44), "beamer notifications"),
		p("bitbucket-client-secret", "bitbucket_client_secret: %s", g.s(tB64url, 64), "bitbucket pipelines"),
		p("bittrex-api-key", "bittrex_api_key=%s", g.s(tAlnum, 32), "bittrex exchange"),
		p("cisco-meraki-api-key", "MERAKI_DASHBOARD_API_KEY=%s", g.s(tHex, 40), "meraki dashboard"),
		p("codecov-access-token", "CODECOV_TOKEN=%s", uuid(), "codecov upload"),
		p("cohere-api-key", "COHERE_API_KEY=%s", g.s(tAlnum, 40), "cohere embed"),
		p("coinbase-access-token", "COINBASE_ACCESS_TOKEN=%s", g.s(tB64url, 64), "coinbase wallet"),
		p("confluent-api-key", "confluent_api_secret: %s", g.s(tB64, 64), "confluent kafka cluster"),
		p("contentful-delivery-token", "CONTENTFUL_DELIVERY_TOKEN=%s", g.s(tB64url, 43), "contentful space"),
		p("datadog-api-key", "datadog_access_token: %s", g.s(lowAl, 40), "datadog agent"),
		p("discord-client-secret", "DISCORD_CLIENT_SECRET=%s", g.s(tB64url, 32), "discord server invite"),
		p("droneci-access-token", "DRONECI_TOKEN=%s", g.s(tAlnum, 32), "droneci pipeline"),
		p("etsy-access-token", "ETSY_API_KEY=%s", g.s(tAlnum, 24), "etsy shop"),
		p("facebook-secret", "FACEBOOK_APP_SECRET=%s", g.s(tHex, 32), "facebook login"),
		p("fastly-api-token", "FASTLY_API_TOKEN=%s", g.s(tB64url, 32), "fastly cdn"),
		p("finicity-api-token", "finicity_app_key=%s", g.s(tHex, 32), "finicity api"),
		p("finnhub-access-token", "FINNHUB_API_KEY=%s", g.s(tAlnum, 20), "finnhub quote"),
		p("flickr-access-token", "FLICKR_API_KEY=%s", g.s(tAlnum, 32), "flickr photos"),
		p("freshbooks-access-token", "FRESHBOOKS_TOKEN=%s", g.s(tAlnum, 64), "freshbooks invoices"),
		p("gitter-access-token", "GITTER_TOKEN=%s", g.s(tB64url, 40), "gitter chat"),
		p("gocardless-api-token", "GOCARDLESS_ACCESS_TOKEN=%s", "live_"+g.s(tB64url, 40), "gocardless mandate"),
		p("hubspot-api-key", "HUBSPOT_API_KEY=%s", strings.ToUpper(uuid()), "hubspot crm"),
		p("intercom-api-key", "INTERCOM_ACCESS_TOKEN=%s", g.s(tB64url, 60), "intercom widget"),
		p("jfrog-api-key", "ARTIFACTORY_API_KEY=%s", g.s(tAlnum, 73), "artifactory repo"),
		p("kraken-access-token", "KRAKEN_API_SECRET=%s", g.s(tB64, 88), "kraken exchange"),
		p("kucoin-access-token", "KUCOIN_API_KEY=%s", g.s(tHex, 24), "kucoin market"),
		p("linear-client-secret", "LINEAR_CLIENT_SECRET=%s", g.s(tHex, 32), "linear regression"),
		p("linkedin-client-secret", "LINKEDIN_CLIENT_SECRET=%s", g.s(tAlnum, 16), "linkedin profile"),
		p("mailgun-signing-key", "MAILGUN_SIGNING_KEY=%s", g.s("abcdefgh0123456789", 32)+"-"+g.s("abcdefgh0123456789", 8)+"-"+g.s("abcdefgh0123456789", 8), "mailgun domain"),
		p("mattermost-access-token", "MATTERMOST_TOKEN=%s", g.s(lowAl, 26), "mattermost channel"),
		p("messagebird-api-token", "MESSAGEBIRD_API_KEY=%s", g.s(tAlnum, 25), "messagebird sms"),
		p("newrelic-api-key", "NEW_RELIC_USER_API_ID=%s", g.s(tAlnum, 64), "new_relic agent"),
		p("nytimes-access-token", "NYTIMES_API_KEY=%s", g.s(tB64url, 32), "nytimes article"),
		p("okta-access-token", "OKTA_API_TOKEN=%s", "00"+g.s(tB64url, 40), "okta sso"),
		p("plaid-api-token", "PLAID_SECRET=%s", g.s(lowAl, 30), "plaid link"),
		p("privateai-api-token", "PRIVATE_AI_API_KEY=%s", g.s(tAlnum, 32), "private-ai redaction"),
		p("rapidapi-access-token", "X_RAPIDAPI_KEY=%s", g.s(tB64url, 50), "rapidapi hub"),
		p("sendbird-access-token", "SENDBIRD_API_TOKEN=%s", g.s(tHex, 40), "sendbird chat"),
		p("sentry-access-token", "SENTRY_TOKEN=%s", g.s(tHex, 64), "sentry issue"),
		p("snyk-api-token", "SNYK_TOKEN=%s", uuid(), "snyk test"),
		p("sonar-api-token", "SONAR_LOGIN=%s", g.s(tB64url, 40), "sonar scanner"),
		p("squarespace-access-token", "SQUARESPACE_API_KEY=%s", uuid(), "squarespace site"),
		p("sumologic-access-token", "SUMO_ACCESS_KEY=%s", g.s(tAlnum, 64), "sumo logic"),
		p("travisci-access-token", "TRAVIS_API_TOKEN=%s", g.s(tAlnum, 22), "travis build"),
		p("twitch-api-token", "TWITCH_CLIENT_SECRET=%s", g.s(lowAl, 30), "twitch stream"),
		p("twitter-api-secret", "TWITTER_ACCESS_TOKEN=%s", g.s(tDig, 19)+"-"+g.s(tAlnum, 40), "twitter.com/x/status/1234567890123456789"),
		p("twitter-api-secret", "TWITTER_API_SECRET=%s", g.s(tAlnum, 50), "TwitterConsumerSecretKeyHolder"),
		p("vault-token", "VAULT_TOKEN=%s", "s."+g.s(tAlnum, 24), "vault := s.ClientTokenAccessorValueX"),
		p("yandex-api-key", "YANDEX_ACCESS_KEY=%s", "YC"+g.s(tB64url, 38), "yandex maps"),
		p("zendesk-secret-key", "ZENDESK_API_TOKEN=%s", g.s(tAlnum, 40), "zendesk ticket"),
		p("box-api-token", "BOX_DEVELOPER_TOKEN=%s", g.s(tAlnum, 32), "checkbox sandbox inbox"),
		p("mailjet-api-key", "MAILJET_API_SECRET=%s", g.s(tHex, 32), "mailjet template"),
		p("postmark-server-token", "POSTMARK_SERVER_TOKEN=%s", uuid(), "postmark stream"),
		p("mistral-api-key", "MISTRAL_API_KEY=%s", g.s(tAlnum, 32), "mistral-large-latest"),
		p("wandb-api-key", "WANDB_API_KEY=%s", g.s(tHex, 40), "wandb run"),
		p("shodan-api-key", "SHODAN_API_KEY=%s", g.s(tAlnum, 32), "shodan search"),
		p("virustotal-api-key", "VIRUSTOTAL_API_KEY=%s", g.s(tHex, 64), "virustotal scan"),
		p("openweather-api-key", "OPENWEATHER_API_KEY=%s", g.s(tHex, 32), "openweather forecast"),
		p("circleci-token", "CIRCLECI_TOKEN=%s", g.s(tHex, 40), "circleci config"),
		p("bugsnag-api-key", "BUGSNAG_API_KEY=%s", g.s(tHex, 32), "bugsnag error"),
		p("rollbar-access-token", "ROLLBAR_ACCESS_TOKEN=%s", g.s(tHex, 32), "rollbar item"),
		p("pagerduty-api-key", "PAGERDUTY_API_KEY=%s", "u+"+g.s(tAlnum, 18), "pagerduty incident"),
		p("trello-api-key", "TRELLO_TOKEN=%s", g.s(tHex, 64), "trello board"),
		p("todoist-api-token", "TODOIST_API_TOKEN=%s", g.s(tHex, 40), "todoist task"),
		p("auth0-client-secret", "AUTH0_CLIENT_SECRET=%s", g.s(tB64url, 64), "auth0 tenant"),
		p("deepgram-api-key", "DEEPGRAM_API_KEY=%s", g.s(tHex, 40), "deepgram nova"),
		p("assemblyai-api-key", "ASSEMBLYAI_API_KEY=%s", g.s(tHex, 32), "assemblyai transcript"),
		p("together-api-key", "TOGETHER_API_KEY=%s", g.s(tHex, 64), "together we ship"),
		p("ngrok-authtoken", "ngrok config add-authtoken %s", g.s(tAlnum, 27)+"_"+g.s(tAlnum, 21), "ngrok http 8080"),
		p("mixpanel-api-secret", "MIXPANEL_API_SECRET=%s", g.s(tHex, 32), "mixpanel event"),
		p("amplitude-api-key", "AMPLITUDE_API_KEY=%s", g.s(tHex, 32), "amplitude of the wave"),
		p("vonage-api-secret", "VONAGE_API_SECRET=%s", g.s(tAlnum, 16), "vonage sms"),
		p("plivo-auth-token", "PLIVO_AUTH_TOKEN=%s", g.s(tAlnum, 40), "plivo call"),
		p("pusher-app-secret", "PUSHER_APP_SECRET=%s", g.s(tHex, 20), "pusher channel"),
		p("paypal-client-secret", "PAYPAL_CLIENT_SECRET=%s", g.s(tB64url, 80), "paypal checkout"),
		p("browserstack-access-key", "BROWSERSTACK_ACCESS_KEY=%s", g.s(tAlnum, 20), "browserstack session"),
		p("saucelabs-access-key", "SAUCE_ACCESS_KEY=%s", uuid(), "saucelabs job"),
		p("azure-devops-pat", "AZURE_DEVOPS_PAT=%s", g.s(lowAl, 52), "azure devops board"),
		p("linode-api-token", "LINODE_TOKEN=%s", g.s(tHex, 64), "linode instance"),
		p("vultr-api-key", "VULTR_API_KEY=%s", g.s(upAl, 36), "vultr region"),
		p("scaleway-secret-key", "SCW_SECRET_KEY=%s", uuid(), "scaleway zone"),
		p("hetzner-api-token", "HCLOUD_TOKEN=%s", g.s(tAlnum, 64), "hetzner server"),
		p("mandrill-api-key", "MANDRILL_API_KEY=%s", g.s(tB64url, 22), "mandrill template"),
		p("sparkpost-api-key", "SPARKPOST_API_KEY=%s", g.s(tHex, 40), "sparkpost mail"),
		p("storyblok-api-token", "STORYBLOK_TOKEN=%s", g.s(tAlnum, 22), "storyblok space"),
		p("sanity-api-token", "SANITY_API_TOKEN=%s", "sk"+g.s(tAlnum, 79), "sanity check passed"),
		p("webflow-api-token", "WEBFLOW_API_TOKEN=%s", g.s(tHex, 64), "webflow site"),
		p("upstash-token", "UPSTASH_REDIS_REST_TOKEN=%s", g.s(tB64url, 60), "upstash redis"),
		p("fireworks-api-key", "FIREWORKS_API_KEY=%s", "fw_"+g.s(tAlnum, 24), "fireworks ai"),
		// structural shapes (structural.go)
		p("password-hash", "root:%s:19500:0:99999:7:::", "$6$"+g.s(tAlnum, 16)+"$"+g.s(tAlnum+"./", 86), "use crypt format $6$salt$hash here"),
		p("password-hash", "admin:%s", "$apr1$"+g.s(tAlnum, 8)+"$"+g.s(tAlnum+"./", 22), "the $apr1$ prefix"),
		p("password-hash", "UPDATE users SET hash='%s'", "$2b$12$"+g.s(tAlnum+"./", 53), "bcrypt hashes start with $2b$"),
		p("password-hash", "deploy:%s", "{SHA}"+g.s(tB64, 27)+"=", "{SHA} is a scheme"),
		p("ntlm-hash", "Administrator:500:%s:::", "aad3b435b51404eeaad3b435b51404ee:"+g.s(tHex, 32), "std::vector<int>::iterator it;:::"),
		p("pgpass-password", "db.example.com:5432:orders:app:%s", g.s(tAlnum, 18), "listening on 0.0.0.0:5432: ready"),
		p("netrc-password", "machine github.com\n  login octocat\n  password %s", g.s(tAlnum, 20), "the machine password is set by the login script"),
		p("psexec-password", `PsExec.exe \\fs -u CORP\admin -p %s cmd.exe`, g.s(tAlnum, 14), `psexec \\fs -p cmd.exe`),
		p("kerberos-keytab", "KRB5_KEYTAB=%s", "BQIAAA"+g.s(tB64, 120), "BQIAAA is how a keytab starts"),
		p("mattermost-webhook", "https://chat.example.com/hooks/%s", g.s("abcdefghijklmnopqrstuvwxyz0123456789", 26), "cp pre-commit .git/hooks/pre-commit"),
		p("microsoft-teams-webhook", "https://outlook.office.com/webhook/%s", uuid()+"@"+uuid()+"/IncomingWebhook/"+g.s(tHex, 32)+"/"+uuid(), "https://outlook.office.com/mail/inbox"),
		// shapes from the Nosey Parker and Kingfisher examples
		p("adafruit-io-key", `#define IO_KEY "%s"`, "aio_"+g.s(tAlnum, 28), "aio_read_file_descriptor_buffers"),
		p("dependency-track-api-key", "X-Api-Key: %s", "odt_"+g.s(tAlnum, 32), "odt_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
		p("django-secret-key", "SECRET_KEY = '%s'", "django-insecure-"+g.s("abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)", 50), "pip install django-insecure-settings-checker"),
		p("twitch-stream-key", "STREAM_KEY=%s", "live_"+g.s("0123456789", 9)+"_"+g.s(tAlnum, 30), "live_reload_enabled_for_the_dev_server_only"),
		p("thingsboard-access-token", "curl https://thingsboard.cloud/api/v1/%s/telemetry", g.s(lowAl, 20), "https://thingsboard.cloud/api/v1/docs"),
		p("azure-devops-pat", "AZURE_DEVOPS_EXT_PAT=%s", g.s(tAlnum, 52)+"JQQJ"+g.s(tAlnum, 20)+"AZDO"+g.s(tAlnum, 4), "AZDO is the signature of a DevOps PAT"),
		p("codeclimate-reporter-id", "CC_TEST_REPORTER_ID: %s", g.s(tHex, 64), "CC_TEST_REPORTER_ID: ${{ secrets.CC_ID }}"),
		p("newrelic-admin-key", "admin: %s", "NRAA-"+g.s(tHex, 27), "NRAA-key"),
		p("newrelic-query-key", `"querykey": "%s"`, "NRIQ-"+g.s(tB64url, 32), "NRIQ-query"),
		p("private-key-base64", "tls.key: %s", "LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFb2dJQkFBS0NBUUVB"+g.s(tB64, 200), "tls.crt: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSURkekNDQWwrZ0F3SUJBZ0lFYkdacE1UQU5CZ2txaGtpRzl3MEJBUXNGQURCc01SQXdEZ1lEVlFRR0V3ZFZibXR1YjNkdU1SQXdEZ1lEVlFRSUV3ZFZibXR1YjNkdQ=="),
		p("truenas-api-key", `{"method":"auth.login_with_api_key","params":["%s"]}`, "8-"+g.s(tAlnum, 64), `{"method":"auth.login_with_api_key","params":["$TRUENAS_KEY"]}`),
		// shapes from the public evaluation set (gitleaks test cases)
		p("claude-code-session-url", "see https://claude.ai/code/session_%s for context", g.s(tAlnum, 24), "https://claude.ai/code/session_short"),
		p("azure-datafactory-shir-key", "key: %s", "IR@"+uuid()+"@adf-app-01@we@"+g.s(tB64, 43)+"=", "IR@ is the runtime prefix"),
		p("ansible-vault", "$ANSIBLE_VAULT;1.1;AES256\n%s", g.s(tHex, 64)+"\n"+g.s(tHex, 64), "$ANSIBLE_VAULT;1.1;AES256 is the header"),
		p("private-key-der", "key = %s", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"+g.s(tB64, 200), "cert = MIIDdzCCAl+gAwIBAgIEbGZpMTANBgkqhkiG9w0BAQsFADBsMRAwDgYDVQQGEwdVbmtub3duMRAwDgYDVQQIEwdVbmtub3du"),
	}
}

func TestProviderNegatives(t *testing.T) {
	s := mustNew(t, Options{})
	g := gen{rand.New(rand.NewSource(11))}
	for _, c := range providerCases(g) {
		fs := s.Scan(c.neg)
		for _, f := range fs {
			assert.NotEqual(t, c.rule, f.Rule, "%s: negative %q: %v", c.rule, c.neg, describe(c.neg, fs))
		}
		assert.Empty(t, fs, "%s: negative %q: %v", c.rule, c.neg, describe(c.neg, fs))
	}
}
