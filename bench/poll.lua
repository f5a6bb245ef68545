-- wrk script for make bench: GET the poll endpoint with the API keys listed
-- one a line in $KEYS_FILE, each thread starting at its own place in the list
-- so that no key sees more than its share of the requests. Prints one JSON
-- line with the figures.
local path = os.getenv("POLL_PATH")
local keys_file = os.getenv("KEYS_FILE")
local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  keys = {}
  for line in io.lines(keys_file) do
    if #line > 0 then keys[#keys + 1] = line end
  end
  i = math.floor(id * #keys / 8)
  n200, n429, nother = 0, 0, 0
end

function request()
  i = i + 1
  return wrk.format("GET", path, { ["Authorization"] = "Bearer " .. keys[(i % #keys) + 1] })
end

-- Counters are plain numbers: wrk copies numbers between threads reliably.
function response(status, headers, body)
  if status == 200 then n200 = n200 + 1
  elseif status == 429 then n429 = n429 + 1
  else nother = nother + 1 end
end

function done(summary, latency, requests)
  local a, b, c = 0, 0, 0
  for _, t in ipairs(threads) do
    a, b, c = a + t:get("n200"), b + t:get("n429"), c + t:get("nother")
  end
  io.write(string.format(
    '{"requests":%d,"seconds":%.3f,"p50_us":%d,"p99_us":%d,"max_us":%d,"socket_errors":%d,"statuses":{%s}}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99), latency.max,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    string.format('"200":%d,"429":%d,"other":%d', a, b, c)))
end
