// Verifies deliveries with the official Standard Webhooks library, as a
// customer's receiver would. stdin: a JSON array of {secret, headers, body};
// stdout: a JSON array of {ok, error}, one per delivery, in order.
const { Webhook } = require("standardwebhooks");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const results = JSON.parse(input).map((d) => {
    try {
      new Webhook(d.secret).verify(d.body, d.headers);
      return { ok: true, error: "" };
    } catch (e) {
      return { ok: false, error: String(e && e.message || e) };
    }
  });
  process.stdout.write(JSON.stringify(results));
});
