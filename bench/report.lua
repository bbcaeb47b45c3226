-- wrk script of bench/run.sh: sends the run's request and prints one
-- machine-readable summary line. Every response outside 2xx is counted,
-- per thread, and reported as non2xx (wrk's own error count only covers
-- statuses above 399). The request comes from the environment:
-- BENCH_METHOD (default POST), BENCH_BODY, BENCH_TOKEN (a bearer token,
-- never printed) and BENCH_HEADERS.

wrk.method = os.getenv("BENCH_METHOD") or "POST"
wrk.body = os.getenv("BENCH_BODY") or ""
wrk.headers["Content-Type"] = "application/json"
local token = os.getenv("BENCH_TOKEN") or ""
if token ~= "" then
	wrk.headers["Authorization"] = "Bearer " .. token
end
-- BENCH_HEADERS: more request headers, one "Name: value" a line (run M's
-- MCP headers).
for line in (os.getenv("BENCH_HEADERS") or ""):gmatch("[^\n]+") do
	local name, value = line:match("^([^:]+):%s*(.*)$")
	if name then
		wrk.headers[name] = value
	end
end

local threads = {}

function setup(thread)
	table.insert(threads, thread)
end

non2xx = 0

function response(status, headers, body)
	if status < 200 or status > 299 then
		non2xx = non2xx + 1
	end
end

function done(summary, latency, requests)
	local bad = 0
	for _, thread in ipairs(threads) do
		bad = bad + thread:get("non2xx")
	end
	local e = summary.errors
	io.write(string.format(
		"BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d connect=%d read=%d write=%d status=%d timeout=%d\n",
		summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), bad,
		e.connect, e.read, e.write, e.status, e.timeout))
end
