"""Thirty-three briefs that ask for headings the company's content can and cannot answer.

Written for the copy test of answered headings (tests/workers/test_answered_headings.py): each
asks for some of "Pricing", "Security", "Integrations", "Timeline", "FAQ" and "Who it is not
for" beside other sections, in the three voices (eleven each), with proof that has scales
("1.2 million"), quotes with a trailing comma, long topics with lists, goals the page cannot
serve and acronyms typed in lower case. `HELD_OUT` (every third brief) was kept aside while
the writer was tuned on `TUNED`, and its figures are reported on their own.
"""

from __future__ import annotations

from typing import Any

HEADING_BRIEFS: list[dict[str, Any]] = [
    {
        "slug": "h-crm-merge",
        "topic": "A CRM you can trust before the board meeting",
        "icp": "RevOps leads at Series B SaaS companies",
        "goal": "Book a call",
        "offer": "We merge duplicate records and assign an owner to every account. You get a "
        "written stage definition for each pipeline stage.",
        "proof": ["Merged 1.2 million CRM records", "Cut duplicate accounts from 4,100 to 90"],
        "sections": ["What you get", "Pricing", "Security", "Results"],
        "tone": "direct",
    },
    {
        "slug": "h-attribution-warm",
        "topic": "Attribution that your sales team and your CFO both believe",
        "icp": "Heads of marketing at B2B SaaS companies",
        "offer": "We reconcile your ad platforms, web analytics and CRM into one table. Every "
        "number the sources disagree on is flagged for a person to check.",
        "proof": [
            '"For the first time the board saw one pipeline number," - Hana Sato, CMO at Tallyhub'
        ],
        "sections": ["How it works", "Integrations", "Pricing", "FAQ"],
        "tone": "warm",
    },
    {
        "slug": "h-trial-goal",
        "topic": "Landing pages for product-led trials",
        "icp": "Growth leads at PLG SaaS companies",
        "goal": "Get a free trial signup",
        "offer": "Quill drafts landing page copy against your brand rules. Every page ships with "
        "a test plan.",
        "sections": ["What you get", "Timeline", "Who it is not for"],
        "tone": "formal",
    },
    {
        "slug": "h-security-offer",
        "topic": "Account research your security team signs off on",
        "icp": "Sales leaders at cybersecurity companies",
        "offer": "Scout reads only public sources and the CRM fields you share. Security: we work "
        "in read-only CRM access and never export contact data outside your workspace.",
        "proof": ["Researched 2,300 target accounts in one quarter"],
        "sections": ["Security", "Integrations", "Pricing", "FAQ"],
        "tone": "plain",
    },
    {
        "slug": "h-long-topic",
        "topic": "Clean attribution for RevOps teams whose ad, web and CRM data disagree every "
        "single month",
        "icp": "RevOps managers at Series A SaaS companies",
        "offer": "One attribution table, rebuilt from the sources each week.",
        "proof": ["Found 22% of pipeline counted twice across ad platforms"],
        "sections": ["Timeline", "Pricing", "Who it is not for"],
        "tone": "friendly",
    },
    {
        "slug": "h-lower-case",
        "topic": "crm hygiene for it teams at b2b saas companies",
        "icp": "heads of it at b2b saas companies",
        "offer": "we clean your crm and document every field. not for teams without a crm admin.",
        "sections": ["security", "who it is not for", "faq"],
        "tone": "formal and measured",
    },
    {
        "slug": "h-outbound-pilot",
        "topic": "A four-week outbound pilot",
        "icp": "Founders of seed-stage devtools companies",
        "offer": "A four-week pilot on one segment. You get the sequences, the reply data and a "
        "recommendation to continue or stop.",
        "proof": ["Booked 14 meetings in a four-week pilot for a devtools company"],
        "sections": ["Timeline", "Pricing", "Integrations", "FAQ"],
        "tone": "direct",
    },
    {
        "slug": "h-scaled-money",
        "topic": "Pipeline from accounts you already know",
        "icp": "VPs of sales at Series C SaaS companies",
        "offer": "Beacon alerts your reps when a target account starts evaluating.",
        "proof": [
            "Sourced $2.4M in pipeline from existing target accounts",
            "Alerted reps on 310 accounts in evaluation",
        ],
        "sections": ["Results", "Integrations", "Security", "Pricing"],
        "tone": "warm and friendly",
    },
    {
        "slug": "h-board-formal",
        "topic": "Board-ready pipeline reporting",
        "icp": "CFOs at venture-backed software companies",
        "proof": ["Forecast error fell from 26% to 8% over two quarters"],
        "sections": ["Pricing", "Timeline", "FAQ", "Who it is not for"],
        "tone": "executive",
    },
    {
        "slug": "h-experiments",
        "topic": "Experiments with a sample-size check before launch",
        "icp": "Product managers at PLG companies",
        "offer": "Prism checks every test's sample size before launch. Each result is written up "
        "with its confidence interval.",
        "proof": ["Ran 48 experiments across 6 clients in one year"],
        "sections": ["How we run a test", "Security", "Pricing", "FAQ"],
        "tone": "crisp",
    },
    {
        "slug": "h-demo-form",
        "topic": "A demo form with four fields",
        "icp": "Demand gen managers at B2B SaaS companies",
        "goal": "Collect requests through the form",
        "offer": "We cut your demo form to the fields sales uses. You keep the test write-up.",
        "proof": ["Form completion rose from 24.8% to 31.5% after the cut"],
        "sections": ["Results", "Integrations", "Timeline", "Get in touch"],
        "tone": "conversational",
    },
    {
        "slug": "h-it-buyers",
        "topic": "Messaging that IT buyers read to the end",
        "icp": "Product marketers at it security vendors",
        "offer": "Positioning tested with real buyers. If you have no sales team yet, this is "
        "not for you.",
        "sections": ["Who it is not for", "Pricing", "FAQ"],
        "tone": "formal",
    },
    {
        "slug": "h-newsletter-goal",
        "topic": "Lifecycle email for subscription SaaS",
        "icp": "Lifecycle marketers at subscription SaaS companies",
        "goal": "Get newsletter subscribers",
        "offer": "Every send is tested against a holdout.",
        "sections": ["How it works", "Pricing", "Security"],
        "tone": "direct",
    },
    {
        "slug": "h-cta-wins",
        "topic": "Pricing page teardowns",
        "icp": "Founders of B2B SaaS startups",
        "goal": "Get a free trial signup",
        "cta_label": "Start your teardown",
        "cta_href": "/teardown",
        "offer": "We read your pricing page the way a buyer does and send a written teardown.",
        "sections": ["Pricing", "FAQ", "Integrations"],
        "tone": "warm",
    },
    {
        "slug": "h-enterprise-formal",
        "topic": "Account briefs for enterprise deals",
        "icp": "CROs at Series C fintech companies",
        "goal": "Schedule a briefing",
        "offer": "A one-page brief per target account, refreshed monthly. Buying committees "
        "mapped from public filings and job posts.",
        "proof": [
            "Mapped 420 buying committees for a payments company",
            "'Our AEs walk in knowing who signs,' - Omar Haddad, CRO at Paylane",
        ],
        "sections": ["Security", "Integrations", "Timeline", "Pricing", "FAQ"],
        "tone": "formal",
    },
    {
        "slug": "h-replies",
        "topic": "Outbound that earns replies",
        "icp": "SDR managers at mid-market SaaS companies",
        "offer": "Relay keeps sending volumes inside deliverability limits and routes replies to "
        "the right rep.",
        "proof": ["Reply rates rose 31% after sequences were cut to three touches"],
        "sections": ["Integrations", "Timeline", "FAQ", "Who it is not for"],
        "tone": "blunt",
    },
    {
        "slug": "h-program",
        "topic": "A growth program run by a senior strategist",
        "icp": "VPs of marketing at Series A SaaS companies",
        "offer": "A three-month program across two channels. Weekly written reports.",
        "sections": ["Pricing", "Timeline", "Security", "FAQ"],
        "tone": "warm",
    },
    {
        "slug": "h-processed-billion",
        "topic": "Web signals your sales team can act on",
        "icp": "Heads of sales at B2B SaaS companies",
        "offer": "Beacon watches visits, form fills and sign-ups and alerts your reps.",
        "proof": ["Processed 1.8 billion website events for one client"],
        "sections": ["Integrations", "Security", "Results", "Pricing"],
        "tone": "measured",
    },
    {
        "slug": "h-audit-direct",
        "topic": "A two-week growth audit",
        "icp": "Heads of growth at Series A SaaS companies",
        "goal": "Request the audit",
        "offer": "We review tracking, CRM hygiene and funnel conversion in two weeks. You keep "
        "the written findings either way.",
        "sections": ["Pricing", "Timeline", "Who it is not for", "FAQ"],
        "tone": "direct",
    },
    {
        "slug": "h-copy-review",
        "topic": "Ad copy that passes legal review",
        "icp": "Marketing leads at fintech companies",
        "offer": "Quill marks each sentence that needs a source. A strategist checks every claim "
        "before it ships.",
        "proof": [
            '"Legal approved the page on the first pass," - Sam Cole, Head of Marketing, Paybright'
        ],
        "sections": ["Security", "Pricing", "Testimonials"],
        "tone": "friendly",
    },
    {
        "slug": "h-download-goal",
        "topic": "The attribution playbook",
        "icp": "Marketing ops managers at B2B SaaS companies",
        "goal": "Download the attribution playbook",
        "offer": "How we reconcile ad, web and CRM data, step by step.",
        "sections": ["What's inside", "Integrations", "Get the playbook"],
        "tone": "formal",
    },
    {
        "slug": "h-seed-founders",
        "topic": "Your first growth hire, planned",
        "icp": "Founders of seed-stage B2B SaaS companies",
        "offer": "We run the program until your first growth hire can take it over. Not for "
        "companies before product-market fit.",
        "proof": ["Handed over 7 programs to in-house hires"],
        "sections": ["Who it is not for", "Timeline", "Pricing", "Security"],
        "tone": "direct",
    },
    {
        "slug": "h-churn",
        "topic": "Win-back campaigns for churned accounts",
        "icp": "Customer marketing leads at SaaS companies",
        "offer": "Campaigns to accounts that churned in the last year, written and tested.",
        "proof": ["Won back 36 accounts in one quarter"],
        "sections": ["FAQ", "Integrations", "Pricing"],
        "tone": "casual",
    },
    {
        "slug": "h-analyst",
        "topic": "Pipeline analysis for the quarterly board pack",
        "icp": "Finance leaders at Series B SaaS companies",
        "proof": ["Built 12 board packs in one year"],
        "sections": ["Timeline", "Security", "Integrations", "Pricing", "FAQ"],
        "tone": "analytical",
    },
    {
        "slug": "h-webinar-goal",
        "topic": "What changed in outbound deliverability",
        "icp": "Sales development leaders at B2B SaaS companies",
        "goal": "Get webinar registrations",
        "offer": "Sending volumes kept inside deliverability limits.",
        "sections": ["FAQ", "Pricing"],
        "tone": "warm",
    },
    {
        "slug": "h-reports",
        "topic": "Weekly reports your CEO actually reads",
        "icp": "Marketing leaders at Series A SaaS companies",
        "offer": "A written report every Friday, with the numbers that did not move.",
        "proof": ["Sent 260 weekly reports without a missed Friday"],
        "sections": ["What the report shows", "Pricing", "Security", "Timeline"],
        "tone": "direct",
    },
    {
        "slug": "h-icp-research",
        "topic": "ICP definitions your SDRs can filter on",
        "icp": "SDR managers at B2B SaaS companies",
        "offer": "We turn your ICP into filters your SDRs can run in the CRM.",
        "sections": ["Integrations", "Who it is not for", "FAQ", "Pricing"],
        "tone": "formal",
    },
    {
        "slug": "h-paid-search",
        "topic": "Paid search that pays back",
        "icp": "Growth teams at product-led SaaS companies",
        "proof": [
            "Cost per trial fell 27% in one quarter",
            "Saved $1.1M in wasted spend over a year",
        ],
        "sections": ["Results", "Pricing", "Integrations"],
        "tone": "crisp",
    },
    {
        "slug": "h-purchase-goal",
        "topic": "A growth audit you can buy today",
        "icp": "Founders of Series A SaaS companies",
        "goal": "Purchase the audit online",
        "offer": "A two-week review of tracking, funnel and channels.",
        "sections": ["Pricing", "Timeline"],
        "tone": "friendly",
    },
    {
        "slug": "h-strategist",
        "topic": "A named strategist who signs off on every output",
        "icp": "Heads of growth at Series B SaaS companies",
        "offer": "Your strategist owns the plan. Agents do the research, copy and analysis.",
        "sections": ["Who does the work", "Security", "FAQ", "Pricing"],
        "tone": "professional",
    },
    {
        "slug": "h-hubspot",
        "topic": "HubSpot reporting your board believes",
        "icp": "RevOps leads at Series A SaaS companies",
        "offer": "We rebuild your HubSpot pipeline reports. Integrations: we connect HubSpot, "
        "Google Ads and LinkedIn Ads through their own exports.",
        "sections": ["Integrations", "Pricing", "Timeline"],
        "tone": "direct",
    },
    {
        "slug": "h-quarter-plan",
        "topic": "A 90-day plan for pipeline",
        "icp": "Revenue leaders at Series B SaaS companies",
        "offer": "We agree on three to five pipeline metrics and the experiments to start with.",
        "sections": ["Timeline", "FAQ", "Security", "Who it is not for"],
        "tone": "warm",
    },
    {
        "slug": "h-minimal-formal",
        "topic": "Growth work for enterprise software",
        "icp": "CMOs at enterprise software companies",
        "sections": ["Pricing", "Security", "Integrations", "Timeline", "FAQ", "Who it is not for"],
        "tone": "formal",
    },
]

HELD_OUT = HEADING_BRIEFS[2::3]
TUNED = [brief for brief in HEADING_BRIEFS if brief not in HELD_OUT]
