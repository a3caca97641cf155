"""Pure rendering: page HTML from blocks, hero images, markdown, sitemaps and text files."""
