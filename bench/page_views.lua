-- wrk script of bench/signal_page_views_served.py: every request is a page-view beacon as the
-- beacon script sends it, with an id of its own (a counter per wrk thread) and one of
-- BENCH_VISITORS visitor ids in turn. BENCH_RUN tells one round's ids from another's.
local run = os.getenv("BENCH_RUN") or "r0"
local origin = os.getenv("BENCH_ORIGIN") or "http://bench.local"
local visitors = tonumber(os.getenv("BENCH_VISITORS") or "2000")
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("tag", run .. "t" .. threads)
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Origin"] = origin

local counter = 0
local shape = '{"id":"beacon-%s-%d","type":"page_view",'
  .. '"page":{"url":"%s/p/page-%d","path":"/p/page-%d","title":"Page %d"},'
  .. '"properties":{"visitor_id":"visitor-%s-%d","utm_source":"li","utm_campaign":"q4"}}'

function request()
  counter = counter + 1
  local page = counter % 40
  local body = string.format(shape, tag, counter, origin, page, page, page, tag, counter % visitors)
  return wrk.format(nil, nil, nil, body)
end
