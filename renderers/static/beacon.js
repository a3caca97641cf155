/* frontdoor beacon: one page_view per page load to this service's /collect.
 * No cookies, no third-party code. A random visitor id is kept in localStorage.
 * Sends nothing when the browser signals Global Privacy Control or Do Not Track.
 * data-consent="required" on the script tag waits for the visitor's yes (a small notice,
 * styled by our stylesheet on our pages and by itself on other sites).
 * Lead forms posting to /collect get hidden visitor_id, referrer and utm_* fields.
 * data-variant="<id>" on the script tag (the variant of the page served) rides on every event
 * and on the lead forms as a hidden field; without it the events count for the control.
 * A click on one of the page's buttons (links styled as buttons, <button>s) sends a cta_click.
 * Beacons say only what the browser saw (the page, its campaign, the button): never a person.
 * window.frontdoor.identify(form) links this visitor to the address typed in the form being
 * sent (or identify(email) from a form's own submit handler): a form post, as the lead form's. */
(function () {
  "use strict";
  var tag = document.currentScript;
  var base = tag && tag.src ? new URL(tag.src, location.href).origin : location.origin;
  var endpoint = (tag && tag.getAttribute("data-collect")) || base + "/api/public/v1/collect";
  var needsConsent = !!tag && tag.getAttribute("data-consent") === "required";
  var variant = (tag && tag.getAttribute("data-variant")) || "";
  if (!/^[a-z0-9][a-z0-9-]{0,31}$/.test(variant)) variant = "";
  var UTM = ["utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"];
  var nav = navigator;
  var optedOut = nav.globalPrivacyControl === true || nav.doNotTrack === "1" || window.doNotTrack === "1";

  function store(key, value) {
    try {
      if (value === undefined) return localStorage.getItem(key);
      localStorage.setItem(key, value);
    } catch (e) { /* storage off: no id is kept */ }
    return value;
  }

  function randomId() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  function visitorId() {
    var id = store("frontdoor_vid");
    if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) id = store("frontdoor_vid", "v" + randomId());
    return id;
  }

  function attribution() {
    var params = new URLSearchParams(location.search);
    var out = {};
    UTM.forEach(function (name) {
      var value = params.get(name);
      if (value) out[name] = value.slice(0, 200);
    });
    if (document.referrer) out.referrer = withCampaignOnly(document.referrer).slice(0, 1000);
    if (variant) out.variant = variant;
    return out;
  }

  // An address as sent: only its campaign stays of the query, so an address or a token in a
  // link's query string never leaves the browser.
  function withCampaignOnly(href) {
    var url;
    try { url = new URL(href); } catch (e) { return ""; }
    var kept = new URLSearchParams();
    UTM.forEach(function (name) {
      var value = url.searchParams.get(name);
      if (value) kept.set(name, value.slice(0, 200));
    });
    var query = kept.toString();
    return url.origin + url.pathname + (query ? "?" + query : "");
  }

  function send(body) {
    body.id = randomId();
    var data = JSON.stringify(body);
    if (nav.sendBeacon && nav.sendBeacon(endpoint, new Blob([data], { type: "text/plain" }))) return;
    if (window.fetch) fetch(endpoint, { method: "POST", body: data, keepalive: true, mode: "no-cors" });
  }

  function fillForms(props) {
    var forms = document.querySelectorAll("form[action$='/api/public/v1/collect']");
    Array.prototype.forEach.call(forms, function (form) {
      Object.keys(props).forEach(function (name) {
        if (form.elements[name]) return;
        var input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        input.value = props[name];
        form.appendChild(input);
      });
    });
  }

  function start() {
    var props = attribution();
    props.visitor_id = visitorId();
    fillForms(props);
    var page = { url: withCampaignOnly(location.href).slice(0, 2000), path: location.pathname.slice(0, 500), title: document.title.slice(0, 300) };
    send({ type: "page_view", page: page, properties: props });
    document.addEventListener("click", function (event) {
      var target = event.target instanceof Element ? event.target : null;
      var button = target && target.closest("a.button, button");
      if (!button || button.closest("[aria-label='Analytics consent']")) return;
      var cta = { visitor_id: props.visitor_id, cta_label: (button.textContent || "").trim().slice(0, 200) };
      UTM.forEach(function (name) { if (props[name]) cta[name] = props[name]; });
      if (variant) cta.variant = variant;
      var href = button.getAttribute("href");
      if (href) cta.cta_href = href.slice(0, 1000);
      send({ type: "cta_click", page: page, properties: cta });
    }, true);
  }

  // A form the visitor sends names the person, so identify goes as a form post (counted as
  // one), with the address read from the form when it is given one.
  function identify(formOrEmail) {
    if (optedOut || (needsConsent && store("frontdoor_consent") !== "yes")) return;
    var email = formOrEmail;
    if (formOrEmail instanceof HTMLFormElement) {
      var field = formOrEmail.elements.namedItem("email") || formOrEmail.querySelector("input[type=email]");
      email = field ? field.value : "";
    }
    var fields = new URLSearchParams(attribution());
    fields.set("type", "identify");
    fields.set("email", String(email || "").slice(0, 254));
    fields.set("visitor_id", visitorId());
    if (nav.sendBeacon && nav.sendBeacon(endpoint, fields)) return;
    if (window.fetch) fetch(endpoint, { method: "POST", body: fields, keepalive: true, mode: "no-cors" });
  }

  // Other sites carry none of our stylesheets, and may have rules of their own for a class
  // like "consent": there the notice styles itself, inline (CSSOM, which a CSP allows).
  var ownSite = base === location.origin;
  var BAR = "position:fixed;left:0;right:0;bottom:0;z-index:2147483647;display:flex;flex-wrap:wrap;justify-content:center;align-items:center;gap:8px 16px;margin:0;padding:12px 20px;box-sizing:border-box;background:#fff;color:#17212b;border-top:1px solid #d5dbe1;box-shadow:0 -10px 30px -24px rgba(23,33,43,.5);font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;text-align:left";
  var TEXT = "display:block;flex:1 1 280px;max-width:560px;margin:0;padding:0;font:inherit;color:inherit";
  var BUTTON = "display:inline-block;min-height:40px;min-width:64px;margin:0;padding:8px 16px;border:1px solid #17212b;border-radius:6px;background:#17212b;color:#fff;font:inherit;font-weight:600;cursor:pointer";

  function dress(el, rules) {
    if (ownSite) return;
    rules.split(";").forEach(function (rule) {
      var at = rule.indexOf(":");
      el.style.setProperty(rule.slice(0, at), rule.slice(at + 1), "important");
    });
  }

  // Where consent is required the server never sets the experiment's assignment id (a random
  // value, api/rest/variant_serving.py): a yes on our page of an experiment sets it here, for
  // the next visit (for this page alone, as the server's); a no removes it.
  function assignmentCookie(choice) {
    if (!variant || !ownSite) return;
    var tail = "; Path=" + location.pathname + "; SameSite=Lax" + (location.protocol === "https:" ? "; Secure" : "");
    if (choice !== "yes") {
      document.cookie = "fd_aid=; Max-Age=0" + tail;
      return;
    }
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    var id = btoa(String.fromCharCode.apply(null, bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    document.cookie = "fd_aid=" + id + "; Max-Age=15552000" + tail;
  }

  function askConsent() {
    var box = document.createElement("div");
    if (ownSite) box.className = "consent";
    dress(box, BAR);
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", "Analytics consent");
    var text = document.createElement("p");
    // On a page testing variants, a yes also keeps which one this browser sees (a cookie).
    text.textContent = variant && ownSite
      ? "May we count your visit? We keep a random id in this browser, also to show you the same version of this page, nothing shared with third parties."
      : "May we count your visit? We keep a random id in this browser, no cookies, nothing shared with third parties.";
    dress(text, TEXT);
    box.appendChild(text);
    // On other sites the bar is fixed: a spacer before it gives the page's end room to scroll above it.
    var spacer = ownSite ? null : document.createElement("div");
    [["Yes", "yes"], ["No", "no"]].forEach(function (choice) {
      var button = document.createElement("button");
      button.type = "button";
      if (ownSite) button.className = "button button-small";
      dress(button, BUTTON);
      button.textContent = choice[0];
      button.addEventListener("click", function () {
        store("frontdoor_consent", choice[1]);
        assignmentCookie(choice[1]);
        box.remove();
        if (spacer) spacer.remove();
        reserve();
        if (choice[1] === "yes") start();
      });
      box.appendChild(button);
    });
    if (spacer) {
      spacer.setAttribute("aria-hidden", "true");
      document.body.appendChild(spacer);
    }
    document.body.appendChild(box);
    // Focus and in-page links scroll what they reach above the bar (with a little air), not under it.
    var root = document.documentElement;
    function reserve() {
      var height = box.isConnected ? Math.ceil(box.getBoundingClientRect().height) : 0;
      root.style.scrollPaddingBottom = height ? height + 12 + "px" : "";
      if (spacer) spacer.style.setProperty("height", height + 12 + "px", "important");
    }
    reserve();
    window.addEventListener("resize", reserve);
  }

  window.frontdoor = { identify: identify };
  if (optedOut) return;
  if (!needsConsent) return start();
  var given = store("frontdoor_consent");
  if (given === "yes") start();
  else if (given !== "no") askConsent();
})();
