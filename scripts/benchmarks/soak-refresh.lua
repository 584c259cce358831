-- wrk script for the soak: a fixed set of refresh-token families, each refreshed again and
-- again, as a fleet of phones keeps its sessions alive. Each thread holds a pool of its own
-- tokens; a request takes one, and the answer's rotated refresh_token goes back into the pool.
-- Usage: wrk ... -s soak-refresh.lua URL -- TOKENS_FILE THREADS CLIENT_ID
-- A token whose answer is not a 200 is lost to the pool (and counted by wrk as non-2xx); an
-- empty pool sends a token that is refused, so a shrinking pool shows as errors, not a stall.
local next_id = 0
function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
end

function init(args)
    local step = tonumber(args[2])
    client_id = args[3]
    headers = { ["Content-Type"] = "application/x-www-form-urlencoded" }
    pool = {}
    local line_number = 0
    for line in io.lines(args[1]) do
        if line_number % step == id then pool[#pool + 1] = line end
        line_number = line_number + 1
    end
end

function request()
    local token = table.remove(pool) or "exhausted"
    return wrk.format("POST", nil, headers,
        "grant_type=refresh_token&client_id=" .. client_id .. "&refresh_token=" .. token)
end

function response(status, response_headers, body)
    if status == 200 then
        local token = string.match(body, '"refresh_token"%s*:%s*"([^"]+)"')
        if token then table.insert(pool, 1, token) end
    end
end
