// An agent session with the official TypeScript MCP client (@modelcontextprotocol/client) against
// a served /mcp: OAuth through the built-in sign-in (driven headlessly like a person without
// JavaScript: email, the code from the embedded outbox, consent), then tools/list and the calls
// given. Prints one JSON line: the granted scope, the tool names, and each call's result.
// Usage: node staff_session.mjs BASE_URL OUTBOX_DIR EMAIL UNTICK(comma list) CALLS(JSON)
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";

const [base, outbox, email, untickList, callsJson] = process.argv.slice(2);
const untick = new Set(untickList.split(",").filter(Boolean));
const calls = JSON.parse(callsJson);
const redirectUri = "http://127.0.0.1:33419/callback";

class MemoryProvider {
  constructor() {
    this.info = undefined;
    this.stored = undefined;
    this.verifier = "";
    this.callback = undefined;
    this.discovery = undefined;
  }
  get redirectUrl() { return redirectUri; }
  get clientMetadata() {
    return {
      client_name: "frontdoor ts e2e",
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() { return this.info; }
  saveClientInformation(info) { this.info = info; }
  tokens() { return this.stored; }
  saveTokens(tokens) { this.stored = tokens; }
  saveCodeVerifier(verifier) { this.verifier = verifier; }
  codeVerifier() { return this.verifier; }
  saveDiscoveryState(state) { this.discovery = state; }
  discoveryState() { return this.discovery; }
  async redirectToAuthorization(url) { this.callback = await signIn(url); }
}

function hiddenFields(html) {
  const fields = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]] = m[2];
  }
  return fields;
}

function newestCode() {
  const files = readdirSync(outbox).filter((f) => f.endsWith(".json")).sort().reverse();
  for (const file of files) {
    const message = JSON.parse(readFileSync(join(outbox, file), "utf8"));
    if (message.to.toLowerCase() === email.toLowerCase()) return message.text.match(/\b(\d{6})\b/)[1];
  }
  throw new Error(`no sign-in code for ${email}`);
}

async function signIn(authorizeUrl) {
  let cookie = "";
  const go = async (url, form) => {
    const init = { redirect: "manual", headers: { cookie } };
    if (form) {
      init.method = "POST";
      init.body = form;
      init.headers["content-type"] = "application/x-www-form-urlencoded";
    }
    const response = await fetch(new URL(url, base), init);
    const set = response.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0];
    return response;
  };
  const toSignin = await go(authorizeUrl);
  const signinUrl = toSignin.headers.get("location");
  const signin = await (await go(signinUrl)).text();
  const toCode = await go("/oauth/signin", new URLSearchParams({ ...hiddenFields(signin), email }));
  const codeUrl = toCode.headers.get("location");
  const codePage = await (await go(codeUrl)).text();
  const toConsent = await go("/oauth/code", new URLSearchParams({ ...hiddenFields(codePage), code: newestCode() }));
  const consent = await (await go(toConsent.headers.get("location"))).text();
  const form = new URLSearchParams({ ...hiddenFields(consent), decision: "allow" });
  for (const m of consent.matchAll(/<input type="checkbox" name="toolset" value="([^"]+)" checked>/g)) {
    if (!untick.has(m[1])) form.append("toolset", m[1]);
  }
  const back = await go("/oauth/consent", form);
  return new URL(back.headers.get("location"));
}

const provider = new MemoryProvider();
const server = new URL(`${base}/mcp`);
let client = new Client({ name: "frontdoor-ts-e2e", version: "1.0.0" });
try {
  await client.connect(new StreamableHTTPClientTransport(server, { authProvider: provider }));
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
  const transport = new StreamableHTTPClientTransport(server, { authProvider: provider });
  await transport.finishAuth(provider.callback.searchParams);
  client = new Client({ name: "frontdoor-ts-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(server, { authProvider: provider }));
}
const tools = (await client.listTools()).tools.map((t) => t.name);
const results = {};
for (const [name, args] of calls) {
  const result = await client.callTool({ name, arguments: args });
  results[name] = { isError: result.isError ?? false, structuredContent: result.structuredContent ?? null, text: result.content?.[0]?.text ?? "" };
}
await client.close();
console.log(JSON.stringify({ scope: provider.stored?.scope ?? "", tools, results }));
