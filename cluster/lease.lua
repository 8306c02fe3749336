-- SPDX-License-Identifier: MIT
-- ioqos: one lease from a global token bucket, atomically (EVALSHA).
--
-- KEYS[1]      the bucket's hash
-- ARGV[1]      the instance's id (1..64 of [A-Za-z0-9._:-])
-- ARGV[2]      the lease length, us (1000 .. 60000000)
-- ARGV[3..6]   the global limits: rbps wbps riops wiops (per second, 0: none)
-- ARGV[7..10]  the instance's demand in the same units
-- returns      { rate0, rate1, rate2, rate3, live instances }
--
-- The hash holds, per dimension d (1..4), the tokens t<d> and the rate
-- r<d> they accrue at since ts (us, Redis's own clock, so every instance
-- shares it), and per live instance a field i:<id> =
-- "seen expiry lease s1 s2 s3 s4 d1 d2 d3 d4": its last call, when its
-- lease ends, its length, the rates it holds and the demands it stated.
--
-- One call: refill lazily, give back what is left of the caller's previous
-- lease, split the limit among the live instances by max-min fairness on
-- their demands (what no one wants goes to everyone evenly), and charge the
-- caller's share for a whole lease in advance, never more than the tokens
-- hold.  The depth is one lease at the full rate, and it counts what the
-- other instances' leases still cover: tokens + outstanding <= R x L at
-- every call, so however the window falls, the tenant can run ahead of R
-- by one lease's worth at most (docs/CLUSTER.md).  An instance that
-- dies loses what is left of its lease; its record expires after three
-- lease lengths (one dated ahead of the server's clock is dropped too: it
-- would never expire).  Every argument is checked before anything is written,
-- and whatever the hash holds is read as untrusted: a field that does not
-- parse, or is out of range, is reset, so the bucket stays consistent
-- (tokens in [0, depth], records well formed) whatever a client sent.

local MAXR = 1125899906842624          -- 2^50 per second
local NDIM = 4

local function arg_int(i, lo, hi)
	local s = ARGV[i]
	if type(s) ~= 'string' or #s == 0 or #s > 16 or not string.find(s, '^%d+$') then
		return nil
	end
	local x = tonumber(s)
	if x == nil or x < lo or x > hi then
		return nil
	end
	return x
end

-- a stored number: finite, in [0, hi], else nil
local function stored(s, hi)
	local x = tonumber(s)
	if x == nil or x ~= x or x < 0 or x > hi then
		return nil
	end
	return x
end

if #KEYS ~= 1 or #ARGV ~= 10 then
	return redis.error_reply('ioqos: lease: wants 1 key and 10 arguments')
end
local id = ARGV[1]
if #id < 1 or #id > 64 or string.find(id, '[^%w%._:%-]') then
	return redis.error_reply('ioqos: lease: bad instance id')
end
local lease = arg_int(2, 1000, 60000000)
if lease == nil then
	return redis.error_reply('ioqos: lease: bad lease length (ARGV[2])')
end
local rate, want = {}, {}
for d = 1, NDIM do
	rate[d] = arg_int(2 + d, 0, MAXR)
	want[d] = arg_int(6 + d, 0, MAXR)
	if rate[d] == nil or want[d] == nil then
		return redis.error_reply('ioqos: lease: bad rate or demand (ARGV[' ..
			(rate[d] == nil and 2 + d or 6 + d) .. '])')
	end
	if want[d] > rate[d] then
		want[d] = rate[d]
	end
end

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local h = redis.call('HGETALL', KEYS[1])
local f = {}
for k = 1, #h, 2 do
	f[h[k]] = h[k + 1]
end

-- refill at the rates in force since ts (a ts ahead of now: the clock
-- stepped back; count nothing)
local ts = stored(f.ts, now) or now
local tok, depth = {}, {}
for d = 1, NDIM do
	local r = stored(f['r' .. d], MAXR) or rate[d]
	depth[d] = rate[d] * lease / 1e6
	local x = (stored(f['t' .. d], 1e300) or 0) + r * (now - ts) / 1e6
	if x > depth[d] then
		x = depth[d]
	end
	tok[d] = x
end

-- the live instances and their demands; drop the expired and the garbled
local dead = {}
local demands = {}
for d = 1, NDIM do
	demands[d] = {}
end
local live = 0
local outstanding = { 0, 0, 0, 0 }     -- what the others' leases still cover
local mine = 'i:' .. id
for k, v in pairs(f) do
	if string.sub(k, 1, 2) == 'i:' then
		-- eleven plain integers, a lease length the script accepts, seen
		-- no later than now, an expiry at most a lease after it
		local x = {}
		for w in string.gmatch(v, '%S+') do
			x[#x + 1] = string.find(w, '^%d+$') and #w <= 16 and tonumber(w) or false
		end
		local ok = #x == 11
		for j = 1, 11 do
			ok = ok and x[j] ~= false
		end
		ok = ok and x[3] >= 1000 and x[3] <= 60000000 and x[1] <= now and
			x[2] <= x[1] + x[3]
		if ok and now - x[1] > 3 * x[3] then
			ok = false                 -- expired
		end
		if not ok then
			if k ~= mine then
				dead[#dead + 1] = k
			end
		elseif k == mine then
			-- give back what is left of the previous lease
			local left = x[2] - now
			if left > x[3] then
				left = x[3]
			end
			if left > 0 then
				for d = 1, NDIM do
					tok[d] = tok[d] + math.min(x[3 + d], MAXR) * left / 1e6
				end
			end
		else
			live = live + 1
			local left = math.min(math.max(x[2] - now, 0), x[3])
			for d = 1, NDIM do
				local dd = demands[d]
				dd[#dd + 1] = math.min(x[7 + d], rate[d])
				outstanding[d] = outstanding[d] + math.min(x[3 + d], MAXR) * left / 1e6
			end
		end
	end
end
live = live + 1
for d = 1, NDIM do
	local dd = demands[d]
	dd[#dd + 1] = want[d]
	-- the bucket and the leases in force hold one lease in all
	local room = math.max(depth[d] - outstanding[d], 0)
	if tok[d] > room then
		tok[d] = room
	end
end

-- max-min fair share of R for demand w among demands ds (w among them)
local function share(R, ds, w)
	local sum = 0
	for _, x in ipairs(ds) do
		sum = sum + x
	end
	if sum <= R then
		return w + (R - sum) / #ds
	end
	table.sort(ds)
	local left, k = R, #ds
	for _, x in ipairs(ds) do
		local level = left / k
		if x > level then
			return math.min(w, level)
		end
		left = left - x
		k = k - 1
	end
	return w
end

local out = {}
local rec = { now, now + lease, lease }
for d = 1, NDIM do
	local s = 0
	if rate[d] > 0 then
		s = share(rate[d], demands[d], want[d])
		local can = tok[d] * 1e6 / lease
		if s > can then
			s = can
		end
		s = math.floor(s)
		if s < 0 then
			s = 0
		end
		tok[d] = tok[d] - s * lease / 1e6
	end
	if tok[d] > depth[d] then
		tok[d] = depth[d]
	end
	if tok[d] < 0 then
		tok[d] = 0
	end
	out[d] = s
	rec[3 + d] = s
	rec[7 + d] = want[d]
end
out[NDIM + 1] = live

local set = { 'ts', string.format('%d', now) }
for d = 1, NDIM do
	set[#set + 1] = 't' .. d
	set[#set + 1] = string.format('%.17g', tok[d])
	set[#set + 1] = 'r' .. d
	set[#set + 1] = string.format('%d', rate[d])
end
for j = 1, 11 do
	rec[j] = string.format('%d', rec[j])
end
set[#set + 1] = mine
set[#set + 1] = table.concat(rec, ' ')
redis.call('HSET', KEYS[1], unpack(set))
if #dead > 0 then
	redis.call('HDEL', KEYS[1], unpack(dead))
end
redis.call('PEXPIRE', KEYS[1], math.max(60000, math.floor(lease / 100)))
return out
