-- Settle 十三水 tables with atom-chen/ShiSanShuiServer's own settlement code, under luajit.
--
-- capsa's own driver, no server code in it: it loads the server's files from a checkout
-- (the first argument: the directory holding script_thirteen and deploy/chess_svr/
-- script_common) and stubs only the framework around them (the game state, the dealer, the
-- log). The settlement itself is the server's: LibGame:CompareResultNormal (lib_game.lua),
-- PlayerCompareResult:CalculateTotallScore (the 全垒打), Player:IsXianggong (the foul
-- check), LibSpCardLogic:GetSpecialType (the special hands), LibNormalCardLogic (rows).
--
-- Input (stdin), one table a block:
--   T <players> <code card: 0 off, else the server's card number, e.g. 40 (0x28, 8h)>
--   then one line a player: P <13 cards front, middle, back> (plays the setting) or
--   D <13 cards> (declares its special hand), cards as the server numbers them (colour << 4
--   | value: colour 0 diamonds, 1 clubs, 2 hearts, 3 spades; value 2..14; jokers 79, 95).
-- Output, one line a table: each seat's total, or "FOUL <seat>" when the server refuses a
-- setting (相公), or "NOSPECIAL <seat>" when a declared hand holds no special hand.
-- Used by benchmarks/shisanshui_server.py (docs/rules.md#the-shisanshui-preset).

local root = arg[1]
local common = root .. "/deploy/chess_svr/script_common/"
local thirteen = root .. "/script_thirteen/"
package.path = thirteen .. "?.lua;" .. common .. "?.lua;" .. common .. "common/?.lua;" .. package.path

-- the framework's own helpers (its class, its Array), then the stubs
dofile(common .. "common/extern.lua")
dofile(common .. "common/array.lua")
bit = require("bit")
bit.brshift = bit.rshift
bit.blshift = bit.lshift
local function noop() end
LOG_DEBUG, LOG_ERROR, LOG_INFO, LOG_WARN = noop, noop, noop, noop
vardump = function() return "" end
function string.split(s, sep)
    local out = {}
    for part in string.gmatch(s, "([^" .. sep .. "]+)") do out[#out + 1] = part end
    return out
end
-- relative imports (".lib_base", ".core_define"): the server's names are unique across
-- lib/ and core/; framework modules that only supply a base class are empty classes
function import(name)
    if string.sub(name, 1, 1) == "." then
        local base = string.sub(name, 2)
        for _, dir in ipairs({ "lib", "core" }) do
            local path = thirteen .. dir .. "/" .. base .. ".lua"
            local f = io.open(path, "r")
            if f then
                f:close()
                return require(dir .. "." .. base)
            end
        end
        error("import " .. name)
    end
    if string.sub(name, 1, 10) == "framework." then
        return class(name)
    end
    return require(name)
end

_GameModule = { _TableLogic = {} }  -- the table service's hooks: none (the server's own fallbacks)
require("core.core_define")
require("core.card_define")
GGameCfg = { GameSetting = { bSupportWaterBanker = false, bSupportGhostCard = true } }
local PlayerCardGroup = import("core.player_cardgroup")
local PlayerCompareResult = import("core.player_compare_result")
local Player = import("core.player")
LibLaiZi = import("lib.lib_laizi").new()
LibLaiZi:OnGameStart()
LibNormalCardLogic = import("lib.lib_normal_card_logic").new()
LibSpCardLogic = import("lib.lib_sp_card_logic").new()
LibGame = import("lib.lib_game").new()
libRecomand = import("lib.lib_recomand").new()  -- the special hands with jokers read it

local seats = {}
GGameState = { GetPlayerByChair = function(_, i) return seats[i] end }
GRoundInfo = {}
local shooter = 0
GDealer = {
    SetAllShoot = noop,
    SetShootNums = noop,
    SetAllShootChairID = function(_, c) shooter = c end,
    GetAllShootChairID = function() return shooter end,
}
LibGame:CreateInit()

local function seat(chair, cards)
    local group = PlayerCardGroup.new()
    local result = PlayerCompareResult.new()
    return {
        m_stPlayerCardGroup = group,
        cards = cards,
        GetChairID = function() return chair end,
        GetUin = function() return chair end,
        GetPlayerCardGroup = function() return group end,
        GetPlayerCompareResult = function() return result end,
    }
end

local function settle(n, code, lines)
    PLAYER_NUMBER = n
    shooter = 0
    seats = {}
    for i, line in ipairs(lines) do
        local kind, cards = line[1], line[2]
        local p = seat(i, cards)
        seats[i] = p
        local group = p.m_stPlayerCardGroup
        group:AddCardGroup(Array.Clone(cards))
        for _, c in ipairs(cards) do
            if code ~= 0 and c == code then group:SetHasCodeCard(true) end
        end
        if kind == "D" then
            local sp = LibSpCardLogic:GetSpecialType(Array.Clone(cards))
            if sp == GStars_Special_Type.PT_SP_NIL then return "NOSPECIAL " .. i end
            group:SetSpecialType(sp)
        else
            group:SetSpecialType(GStars_Special_Type.PT_SP_NIL)
            local rows = { {}, {}, {} }
            for k, c in ipairs(cards) do
                local r = k <= 3 and 1 or (k <= 8 and 2 or 3)
                table.insert(rows[r], c)
            end
            if Player.IsXianggong(p, rows, Array.Clone(cards)) then return "FOUL " .. i end
        end
    end
    LibGame:CompareResultNormal()
    local out = {}
    for i = 1, n do out[i] = tostring(seats[i]:GetPlayerCompareResult():GetTotallScore()) end
    return table.concat(out, " ")
end

local n, code, lines = nil, nil, {}
for line in io.lines() do
    local words = {}
    for w in string.gmatch(line, "%S+") do words[#words + 1] = w end
    if words[1] == "T" then
        n, code, lines = tonumber(words[2]), tonumber(words[3]), {}
    elseif words[1] == "P" or words[1] == "D" then
        local cards = {}
        for k = 2, #words do cards[#cards + 1] = tonumber(words[k]) end
        lines[#lines + 1] = { words[1], cards }
        if #lines == n then
            io.write(settle(n, code, lines), "\n")
            io.flush()
        end
    end
end
