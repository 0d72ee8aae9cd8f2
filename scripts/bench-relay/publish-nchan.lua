-- wrk: nchan publishes, round robin over $CHANNELS channels, with a body like the relay's data.
local channels, counter = tonumber(os.getenv("CHANNELS")), 0
request = function()
  counter = counter + 1
  return wrk.format("POST", "/pub?id=bench" .. counter % channels, {["Content-Type"] = "application/json"},
    '{"n":"' .. counter .. '"}')
end
