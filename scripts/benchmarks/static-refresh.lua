-- wrk script: POSTs the same refresh-token grant again and again (for issuers that do not rotate).
-- Usage: wrk ... -s static-refresh.lua URL -- REFRESH_TOKEN BASIC_CREDENTIALS
-- The request is formatted once, as refresh.lua formats its requests once each.
function init(args)
    formatted = wrk.format("POST", nil, {
        ["Content-Type"] = "application/x-www-form-urlencoded", ["Authorization"] = "Basic " .. args[2] },
        "grant_type=refresh_token&refresh_token=" .. args[1])
end

function request()
    return formatted
end
