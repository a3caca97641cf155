"""Forty-eight varied briefs for the copy-quality test: with and without proof, sections, tones."""

from __future__ import annotations

from typing import Any

QUOTE_PRIYA = (
    "\u201cThe first audit that told us what to stop doing, not just what to start.\u201d"
    " - Priya Nair, VP Growth at Fieldline"
)
QUOTE_DANA = (
    '"We finally have one pipeline number the board and the sales team both trust." '
    "- Dana Ruiz, CFO at Loomstack"
)

BRIEFS: list[dict[str, Any]] = [
    {
        "slug": "attribution-audit",
        "topic": "Attribution your CFO can check",
        "icp": "Heads of growth at Series A SaaS companies",
        "goal": "Book a two-week attribution audit",
        "offer": "One attribution table from ads, analytics and CRM. Every number the sources "
        "disagree on is flagged.",
        "proof": ["Found 18% of pipeline double-counted across 3 ad platforms"],
        "sections": ["How it works", "Results", "Questions"],
        "tone": "plain and direct",
    },
    {
        "slug": "hype-engine",
        "topic": "A revolutionary, game-changing pipeline engine",
        "icp": "CMOs at B2B SaaS companies",
        "offer": "We leverage world-class AI-powered agents to supercharge your funnel.",
        "goal": "Get a reply to schedule a call",
    },
    {
        "slug": "revops-table",
        "topic": "How RevOps leads reconcile ad platforms, analytics and CRM into one table "
        "your CFO can read",
        "icp": "RevOps leads at Series B SaaS",
        "sections": [
            "The problem",
            "What the audit covers",
            "Why most pricing tests mislead",
            "Results",
            "Proof",
            "Pricing",
        ],
        "proof": [
            "Cut cost per opportunity by 32% across 14 clients when the toggle moved to annual "
            "billing by default for new sign-ups",
            QUOTE_PRIYA,
            "Strategists review every output before it ships",
        ],
        "tone": "warm and friendly",
        "goal": "Get a reply to schedule a call",
    },
    {
        "slug": "outbound-formal",
        "topic": "Outbound that books qualified meetings",
        "icp": "VPs of sales at Series B SaaS companies",
        "offer": "Sequences written for each buying committee. Sending volumes kept inside "
        "deliverability limits. Replies routed to the right rep within the hour.",
        "proof": [
            "Reply rates rose 24% after sequences were cut to three touches",
            QUOTE_DANA,
        ],
        "tone": "formal, for executives",
    },
    {
        "slug": "no-proof-warm",
        "topic": "Experiments your board will believe",
        "icp": "Product marketers at B2B SaaS companies",
        "offer": "Each test gets a sample-size check before launch. Results come with their "
        "confidence interval.",
        "tone": "friendly, conversational",
    },
    {
        "slug": "numbers-in-topic",
        "topic": "Cut CAC by 40% in 30 days",
        "icp": "Growth leads at Series B SaaS",
        "offer": "Our 12-week program. A report every Friday.",
        "proof": ["Cut cost per opportunity by 32% across 14 clients"],
    },
    {
        "slug": "sections-only",
        "topic": "Pipeline reviews without the spreadsheet",
        "icp": "Revenue operations managers",
        "sections": ["What you get", "How it works", "FAQ"],
    },
    {
        "slug": "duplicate-sections",
        "topic": "A demo form that converts",
        "icp": "Demand gen leads at product-led SaaS",
        "sections": ["Results", "How it works", "results", "Questions"],
        "proof": [
            "Demo requests rose 24.8% after cutting the form from nine fields to four",
            "Booked 41 meetings in 90 days",
        ],
        "tone": "direct",
    },
    {
        "slug": "long-proof",
        "topic": "Account research before every first call",
        "icp": "Sales leaders at Series C SaaS companies",
        "proof": [
            "Across 11 enterprise deals closed in the first half, account briefs were read by "
            "the rep before 96% of first calls, according to CRM activity logs",
            "Sales cycle shortened from 94 days to 71 days for accounts with a one-page brief",
        ],
        "tone": "measured and analytical",
        "goal": "Download the account research playbook",
    },
    {
        "slug": "testimonials",
        "topic": "Landing pages that pass legal review",
        "icp": "Marketing leaders at fintech SaaS",
        "sections": ["Why copy stalls in review", "Testimonials", "Get in touch"],
        "proof": [QUOTE_PRIYA, QUOTE_DANA],
        "tone": "professional",
    },
    {
        "slug": "cta-banned",
        "topic": "Signals your sales team can act on",
        "icp": "Heads of growth at B2B SaaS",
        "cta_label": "Unlock your potential",
        "cta_href": "javascript:alert(1)",
        "offer": "Alerts when a target account starts evaluating. One message per account, "
        "not per visit.",
    },
    {
        "slug": "cta-custom",
        "topic": "A growth program with a named strategist",
        "icp": "B2B SaaS founders",
        "cta_label": "Book a fit call",
        "cta_href": "/book",
        "offer": "A strategist owns your plan. Agents do the research, copy and analysis.",
        "sections": ["Who does the work", "Timeline", "Terms"],
        "tone": "blunt",
    },
    {
        "slug": "qualitative-proof",
        "topic": "Reporting you can forward to the board",
        "icp": "VPs of marketing at Series A SaaS",
        "proof": [
            "Reports go out every Friday, good news or bad",
            "Every report links to the raw data behind it",
        ],
        "sections": ["What the report shows", "Proof"],
    },
    {
        "slug": "many-stats",
        "topic": "Paid search that pays back",
        "icp": "Growth teams at product-led SaaS",
        "proof": [
            "Cost per trial fell 27% in one quarter",
            "Trial to paid rose from 8.1% to 11.4%",
            "Wasted spend cut by $42,000 a month",
            "Payback period down to 7 months",
            "Branded CPC down 19%",
        ],
        "tone": "crisp",
    },
    {
        "slug": "steps-and-faq",
        "topic": "A 90-day plan for your first growth hire",
        "icp": "Founders of seed-stage B2B SaaS companies",
        "offer": "We run the program until your first growth hire is ready to take it over.",
        "sections": ["The plan", "Questions founders ask"],
        "tone": "warm",
    },
    {
        "slug": "leadform-goal",
        "topic": "Messaging that sales will actually use",
        "icp": "Product marketing teams at B2B SaaS",
        "goal": "Collect requests through the form",
        "offer": "Positioning tested with real buyers. A message house your sales team signs "
        "off on.",
        "proof": ["Win rate rose 9 points in two quarters"],
    },
    {
        "slug": "long-icp",
        "topic": "Lifecycle email that earns its place in the inbox",
        "icp": "Lifecycle and retention marketers at subscription SaaS companies with self-serve",
        "offer": "No guaranteed open rates. Every send is tested against a holdout.",
        "tone": "formal",
    },
    {
        "slug": "quote-only",
        "topic": "Experiment design reviews",
        "icp": "Growth product managers at B2B SaaS",
        "proof": [QUOTE_DANA],
        "sections": ["What clients say", "How it works"],
    },
    {
        "slug": "ellipsis-offer",
        "topic": "Partner marketing, measured",
        "icp": "Partnership leads at B2B SaaS companies",
        "offer": "Co-marketing with partners... measured like any other channel. Shared "
        "dashboards for both teams.",
        "tone": "casual",
    },
    {
        "slug": "seamless-offer",
        "topic": "CRM hygiene before the board meeting",
        "icp": "RevOps teams at Series B SaaS",
        "offer": "A seamless, turnkey cleanup. Duplicates merged and owners assigned. Every "
        "stage definition written down.",
        "proof": ["Duplicate accounts fell from 2,340 to 160 in three weeks"],
        "sections": ["What we clean up", "Results"],
        "tone": "direct",
    },
    {
        "slug": "pricing-section",
        "topic": "Pricing page tests that survive finance review",
        "icp": "Heads of growth at usage-based SaaS",
        "sections": ["Pricing", "How we run a test", "Questions"],
        "proof": ["Annual plan mix rose 14% after one pricing page test"],
        "tone": "executive",
    },
    {
        "slug": "minimal",
        "topic": "Growth work",
        "icp": "Marketing leaders",
    },
]

# Briefs a sweep of the writer read as buyers would (tests/workers/test_copy_fidelity.py):
# offers that time their own work, briefs no agent fits, odd and lower-case sections.
SWEEP_BRIEFS: list[dict[str, Any]] = [
    {
        "slug": "pipeline-review",
        "topic": "A pipeline review your board trusts",
        "icp": "VPs of sales at B2B software companies with 20 to 80 reps",
        "goal": "Book a 30-minute pipeline review call",
        "offer": "We rebuild your pipeline report from CRM data in one week. You get stage "
        "conversion by rep, the deals that stalled, and a forecast you can defend.",
        "proof": [
            "Cut forecast error from 31% to 9% for a 40-rep team",
            '"We finally trust the number we send the board" - Dana Ortiz, VP Sales at Fieldline',
            "Reviewed 1,200 open deals in 5 days",
        ],
        "sections": ["What you get", "How it works", "Results", "FAQ"],
        "tone": "warm",
    },
    {
        "slug": "sweep-pricing-audit",
        "topic": "Pricing page audit in 48 hours",
        "icp": "Founders of seed-stage SaaS startups",
        "goal": "Request the audit",
        "offer": "We audit your pricing page in 48 hours. You get a written fix list ranked by "
        "expected impact.",
        "tone": "direct",
    },
    {
        "slug": "sweep-abm-formal",
        "topic": "Account research for enterprise deals",
        "icp": "CROs at Series C fintech companies",
        "goal": "Schedule a briefing",
        "offer": "A one-page brief on every account in your target list, refreshed each month. "
        "Buying committees mapped from public filings and job posts.",
        "proof": [
            "Mapped 340 buying committees for a payments company",
            '"Our AEs walk into first calls knowing who signs" - Tom Reyes, CRO at Paylane',
        ],
        "sections": [
            "The problem",
            "What we deliver",
            "Evidence",
            "Engagement terms",
            "Next steps",
        ],
        "tone": "formal and measured",
    },
    {"slug": "sweep-short", "topic": "Outbound help", "icp": "sales leaders"},
    {
        "slug": "sweep-lower",
        "topic": "fixing your attribution mess",
        "icp": "heads of marketing at b2b saas companies",
        "offer": "we reconcile your ad, analytics and crm numbers. you get one table your cfo can "
        "check.",
        "sections": ["why it matters", "how we work", "questions"],
        "tone": "friendly",
    },
    {
        "slug": "sweep-odd-sections",
        "topic": "Landing pages that convert paid traffic",
        "icp": "Demand gen managers at B2B SaaS companies",
        "goal": "Download the landing page teardown",
        "offer": "Two rewritten landing pages a month, each with a test plan.",
        "proof": ["Raised demo requests by 24% on a rewritten pricing page"],
        "sections": ["Sound familiar?", "Meet the team", "Pricing", "Testimonials", "Get in touch"],
        "tone": "casual",
    },
    {
        "slug": "sweep-signals",
        "topic": "Know when a target account starts evaluating",
        "icp": "SDR managers at mid-market SaaS companies",
        "offer": "Beacon watches visits, form fills and sign-ups on your site and alerts your "
        "reps within the hour.",
        "proof": ["Flagged 62 accounts in evaluation in the first month"],
        "tone": "punchy",
    },
    {
        "slug": "sweep-workshop",
        "topic": "A two-day experiment design workshop",
        "icp": "Product managers at PLG companies",
        "goal": "Book a working session",
        "offer": "In a two-day workshop we design three experiments with your team, each with a "
        "sample-size check.",
        "sections": ["What you'll learn", "Agenda", "FAQ"],
        "tone": "warm",
    },
    {
        "slug": "sweep-nooffer-formal",
        "topic": "Board-ready pipeline reporting",
        "icp": "CFOs at venture-backed software companies",
        "proof": ["Cut forecast error from 28% to 11% over two quarters"],
        "tone": "executive",
    },
    {
        "slug": "sweep-copy-review",
        "topic": "Email copy that sounds like your best rep",
        "icp": "Marketing leads at HR tech companies",
        "offer": "We rewrite your outbound sequences against your brand rules.",
        "sections": ["Deliverables", "Timeline", "Results"],
        "proof": ["Reply rate rose from 2.1% to 4.8% in six weeks"],
        "tone": "direct",
    },
    {
        "slug": "sweep-one-week-sprint",
        "topic": "a one-week growth sprint",
        "icp": "seed founders",
        "offer": "one week. one channel. one report.",
        "tone": "warm",
    },
    {
        "slug": "sweep-pilot",
        "topic": "A six-week outbound pilot",
        "icp": "Heads of sales at seed-stage devtools companies",
        "offer": "A six-week pilot on one segment. You get the sequences, the reply data and a go "
        "or no-go call at the end.",
        "proof": ["Booked 18 meetings in a six-week pilot for a devtools company"],
        "tone": "direct",
    },
    {
        "slug": "sweep-why-now",
        "topic": "Why your attribution breaks after a rebrand",
        "icp": "marketing ops managers",
        "sections": ["why now", "who it's for", "our approach", "the numbers", "guarantee"],
        "tone": "formal",
    },
    {"slug": "sweep-tiny", "topic": "SEO", "icp": "CMOs"},
    {
        "slug": "sweep-question",
        "topic": "Is your pricing page losing deals?",
        "icp": "Founders at B2B SaaS companies",
        "offer": "We read your pricing page the way a buyer does and send a written teardown "
        "within ten business days.",
        "goal": "Get teardown requests",
        "tone": "friendly",
    },
    {
        "slug": "sweep-case-study",
        "topic": "How Fieldline cut its forecast error",
        "icp": "Revenue leaders at Series B SaaS companies",
        "proof": [
            "Cut forecast error from 31% to 9% in one quarter",
            "\u201cThe board stopped asking where the number came from.\u201d"
            " \u2014 Dana Ortiz, VP Sales at Fieldline",
        ],
        "sections": ["Case study", "What changed", "Talk to us"],
        "tone": "measured",
    },
    {
        "slug": "sweep-program",
        "topic": "A growth program run by a senior strategist",
        "icp": "VPs of marketing at Series A SaaS companies",
        "offer": "A three-month program across two channels. Weekly written reports. A monthly "
        "review where we stop what is not working.",
        "tone": "executive",
    },
    {
        "slug": "sweep-all-lower",
        "topic": "cleaner crm data before board season",
        "icp": "revops leads at series b saas",
        "offer": "we merge duplicates, assign owners and write down every stage definition. you "
        "get a clean crm in two weeks.",
        "sections": ["what you get", "how it works", "faq"],
        "tone": "casual",
    },
    {
        "slug": "sweep-deliverables-only",
        "topic": "Account briefs for your top 50 accounts",
        "icp": "Enterprise AEs at cybersecurity companies",
        "offer": "A one-page brief per account: the buying committee, recent changes, and the "
        "first three questions to ask.",
        "sections": ["What's inside", "Sample brief", "Questions"],
        "tone": "plain",
    },
    {
        "slug": "sweep-cta",
        "topic": "Experiment reviews before you ship",
        "icp": "Growth PMs at consumer subscription apps",
        "offer": "We check every experiment's sample size before launch and write up the result "
        "with its confidence interval.",
        "cta_label": "Send us a test plan",
        "cta_href": "/contact",
        "tone": "warm and direct",
    },
    {
        "slug": "sweep-digits-timeline",
        "topic": "Your outbound rebuilt in 2 weeks",
        "icp": "Founders of Series A HR tech companies",
        "offer": "We rebuild your outbound in 2 weeks. You keep every sequence and the reply data.",
        "tone": "direct",
    },
    {
        "slug": "sweep-ten-sections",
        "topic": "Pipeline you can plan around",
        "icp": "CROs at Series C SaaS companies",
        "sections": [
            "Overview",
            "The problem",
            "What we do",
            "How it works",
            "Results",
            "Testimonials",
            "Pricing",
            "FAQ",
            "About us",
            "Book a call",
        ],
        "proof": [
            "Pipeline coverage rose from 2.1x to 3.4x in two quarters",
            '"Our forecast calls got short." - Lena Park, CRO at Northwind',
        ],
        "tone": "formal",
    },
    {
        "slug": "sweep-unknown-agent",
        "topic": "Atlas maps your market",
        "icp": "Product marketers at devtools companies",
        "offer": "Atlas maps every competitor's pricing page each month.",
        "tone": "warm",
    },
    {"slug": "sweep-one-line", "topic": "x", "icp": "y"},
    {
        "slug": "sweep-quote-forms",
        "topic": "Reviews your legal team signs off on",
        "icp": "Marketing leads at fintech companies",
        "proof": [
            "“Legal approved the page on the first pass.” — Sam Cole, Head of Marketing, Paybright",
            "'Fastest review cycle we've had' - Jo, Ledgerly",
        ],
        "sections": ["What clients say", "How it works"],
        "tone": "measured",
    },
    {
        "slug": "sweep-deliverables-list",
        "topic": "A board pack you do not have to build",
        "icp": "Heads of RevOps at Series B SaaS companies",
        "offer": "Every month you get a board pack: pipeline by stage, conversion by segment, and "
        "a forecast with its range.",
        "sections": ["What you get", "Questions"],
        "tone": "direct",
    },
]
BRIEFS += SWEEP_BRIEFS
