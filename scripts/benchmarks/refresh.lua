-- wrk script: POSTs refresh-token grants, each token used once.
-- Usage: wrk ... -s refresh.lua URL -- TOKENS_FILE THREADS CLIENT_ID
-- Thread i takes tokens i, i+THREADS, i+2*THREADS, ... so no token is sent twice. Threads
-- need not progress evenly (a server may serve some connections faster), so at the end the
-- script prints "tokens-used-through: N", the furthest line any thread reached: a later run on
-- the same file starts after it.
local next_id = 0
local threads = {}
function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
    table.insert(threads, thread)
end

-- Each thread formats its requests once, in init, so that sending one costs wrk a table
-- lookup rather than a string build: the load generator shares the two cores with the server.
function init(args)
    local tokens = {}
    for line in io.lines(args[1]) do tokens[#tokens + 1] = line end
    step = tonumber(args[2])
    local client_id = args[3]
    local headers = { ["Content-Type"] = "application/x-www-form-urlencoded" }
    requests = {}
    for i = id + 1, #tokens, step do
        requests[i] = wrk.format("POST", nil, headers,
            "grant_type=refresh_token&client_id=" .. client_id .. "&refresh_token=" .. tokens[i])
    end
    exhausted = wrk.format("POST", nil, headers,
        "grant_type=refresh_token&client_id=" .. client_id .. "&refresh_token=exhausted")
    index = id + 1
end

function request()
    local formatted = requests[index] or exhausted
    index = index + step
    return formatted
end

function done(summary, latency, requests)
    local furthest = 0
    for _, thread in ipairs(threads) do
        local reached = thread:get("index") - 1
        if reached > furthest then furthest = reached end
    end
    io.write(string.format("tokens-used-through: %d\n", furthest))
end
