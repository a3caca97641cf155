"""The Content API's shapes: pages and their blocks, generation briefs and jobs, how a
write changes a page, the characters page text may not hold."""
