"""The JSON API of ``capsa serve``, without the web framework: request bodies in, answers out.

``solve_options`` turns a request body (a JSON object whose keys are the long option
names of ``capsa solve``) into the ``SolveOptions`` of :func:`solver.solve`, checked
against the server's :class:`Limits`; ``RulesCatalog`` resolves the ``rules`` option (a
preset, the ruleset the server was started with, or the text of a TOML ruleset: never a
path on the server). Every error is a :class:`RequestError` (a malformed request, 400) or
the library's own ``CardParseError`` / ``InputError`` / ``RulesError`` (bad values, 422),
whose messages are the lines ``capsa solve`` prints.

Every request that names a table (``rules``, ``players``) may also ask for ``jokers`` (0,
1 or 2, docs/rules.md#jokers): the table is seated first, then given its jokers
(``solver.engine.seating.with_jokers``); a ruleset that ranks suits or pays the dealt
cards' royalties plays none, and a request for them is refused (400, one line).
"""

from __future__ import annotations

import contextlib
import hashlib
import numbers
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from solver.engine.errors import InputError
from solver.engine.inputs import parse_stakes, quote, whole
from solver.engine.layout import NATURAL_NAMES_SHOWN
from solver.engine.options import SolveOptions
from solver.engine.rules import (
    PRESET_GAMES,
    PRESETS,
    Rules,
    RulesError,
    preset,
    rules_from_dict,
    ruleset_data,
)
from solver.engine.ruleset_text import describe_rules, rules_summary
from solver.engine.table_shape import MAX_OPPONENTS, MIN_PLAYERS, TABLE_MAX_PLAYERS

#: The keys of POST /api/solve and /api/check: the long options of ``capsa solve``, the
#: hand, the ruleset and the fields of ``SolveOptions``, but ``pool`` (a path on the
#: server: a request never names one).
SOLVE_KEYS: tuple[str, ...] = tuple(
    dict.fromkeys(
        ("hand", "rules", *(f.name for f in fields(SolveOptions) if f.init and f.name != "pool"),
         "jokers")
    )
)  # fmt: skip
DEAL_KEYS: tuple[str, ...] = ("seed", "rules", "players", "jokers")
RULES_KEYS: tuple[str, ...] = ("rules",)
NATURAL_KEYS: tuple[str, ...] = ("hand", "rules", "players", "jokers")
#: The most jokers a deck holds (evaluator.cards.JOKER_IDS).
MAX_JOKERS = 2


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server (docs/serve.md: limits).

    ``samples``: opponent hands of a Monte Carlo answer; ``top``: runners-up; ``body``:
    bytes of a request body; ``seconds``: from a request's arrival to its answer (a
    Monte Carlo run still going then is stopped and answered 503); ``workers``: threads
    solving at once in each lane (default: the cores); ``pending``: requests a lane holds,
    solving or waiting (default: four per worker in the slow lane, eight times as many in
    the quick lane, whose answers take milliseconds), beyond which it answers 503 busy;
    ``per_client``: requests a lane holds from one client (default: half its places),
    beyond which that client is answered 429 (``solver.apps.web.fair``).
    """

    samples: int = 20_000
    top: int = 20
    body: int = 64 * 1024
    seconds: float = 20.0
    workers: int | None = None
    pending: int | None = None
    per_client: int | None = None

    def resolved(self) -> Limits:
        workers = self.workers or os.cpu_count() or 1
        pending = self.pending if self.pending is not None else 4 * workers
        share = self.per_client if self.per_client is not None else max(1, pending // 2)
        return Limits(self.samples, self.top, self.body, self.seconds, workers, pending, share)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self.resolved())


class RequestError(Exception):
    """A request the API cannot take: ``status`` (400, 404, 413, 503) and one line."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def check_keys(body: Any, keys: tuple[str, ...], example: str) -> dict[str, Any]:
    """The body as a dict of known options, else RequestError naming what is wrong."""
    if not isinstance(body, Mapping):
        raise RequestError(f"the body must be a JSON object of options, e.g. {example}")
    for key in body:
        if key not in keys:
            raise RequestError(f"unknown option {quote(key)}; options are {', '.join(keys)}")
    return dict(body)


# --------------------------------------------------------------------------- rulesets


def summary(r: Rules) -> str:
    """One line about a ruleset (as ``capsa rules`` lists the presets)."""
    return rules_summary(r)


class RulesCatalog:
    """The rulesets a request may name: the presets, the server's default, and TOML text.

    TOML rulesets are parsed once and kept (the 64 most recent texts that are rulesets:
    a text that fails is not kept, and is read again if it comes again), within the
    bounds of ``solver.engine.rules.ruleset_data`` (size, nesting, keys); the server
    reads them off its event loop. A ruleset whose
    field tables are neither shipped nor cached would have to be trained (minutes) before
    it can answer: it is refused with the command that trains it (the page may ask the
    server to train it instead: POST /api/train, ``solver.apps.web.training``).
    """

    MAX_TEXTS = 64

    def __init__(self, default: Rules) -> None:
        self.default = default
        self._texts: OrderedDict[str, Rules] = OrderedDict()
        self._ready: set[str] = set()
        self._touched: dict[str, float] = {}
        self._lock = threading.Lock()

    def rulesets(self) -> list[Rules]:
        """The default first, then the presets."""
        out = [self.default]
        out += [r for r in PRESETS.values() if r != self.default]
        return out

    def resolve(self, value: Any) -> Rules:
        """The Rules for a request's ``rules`` value; RulesError when it names none."""
        if value is None:
            return self.default
        if isinstance(value, Mapping):
            return rules_from_dict(value)
        if not isinstance(value, str):
            raise RulesError(
                "rules must be a preset name or the text of a TOML ruleset, "
                f"got {type(value).__name__}"
            )
        if "=" in value or "\n" in value:
            return self._from_toml(value)
        if value.strip() == self.default.name:
            return self.default
        return preset(value)

    def _from_toml(self, text: str) -> Rules:
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        with self._lock:
            if key in self._texts:
                self._texts.move_to_end(key)
                return self._texts[key]
        try:
            r = rules_from_dict(ruleset_data(text))
        except RulesError as exc:
            raise RulesError(f"rules: {exc}") from None
        with self._lock:
            self._texts[key] = r
            while len(self._texts) > self.MAX_TEXTS:
                self._texts.popitem(last=False)
        return r

    #: How often a cached table in use is marked used (its time, for the trainer's
    #: least-recently-used bound: ``solver.apps.web.training.Trainer.MAX_TABLES``).
    USED_EVERY = 60.0

    def ready(self, r: Rules) -> bool:
        """Whether ``r`` can be answered without training its field tables (a cached
        table's modification time is set to now, at most once a minute: it was used)."""
        from solver.engine.compiled import compile_rules
        from solver.strategy.field_model.trained import field_ready

        digest = r.digest()
        if digest in self._ready:
            self._used(r)
            return True
        ok = field_ready(compile_rules(r))
        if ok:
            self._ready.add(digest)
            self._used(r)
        return ok

    def _used(self, r: Rules) -> None:
        import time

        from solver.engine.compiled import compile_rules
        from solver.strategy.field_model.field import field_cache_path

        if r.name in PRESETS:
            return  # shipped tables
        now, digest = time.monotonic(), r.digest()
        with self._lock:
            if now - self._touched.get(digest, -self.USED_EVERY) < self.USED_EVERY:
                return
            self._touched[digest] = now
        with contextlib.suppress(OSError):
            os.utime(field_cache_path(compile_rules(r)))

    def forget_ready(self) -> None:
        """Ask again which rulesets are ready (tables were removed from the cache)."""
        with self._lock:
            self._ready.clear()
            self._touched.clear()

    def require_ready(self, r: Rules) -> None:
        if self.ready(r):
            return
        jokers = train_with_jokers(r)
        if jokers is not None:
            raise RulesError(
                f"the field tables of {r.name!r} (the table with {r.jokers} joker"
                f"{'s' * (r.jokers > 1)}) are not trained yet: train them once with "
                f"`{jokers}` (a few minutes); the server answers at that table from then on"
            )
        raise RulesError(
            f"ruleset {r.name!r} sets hands differently from every preset and its field "
            "tables are not trained yet: train them once with `capsa train --rules FILE` "
            "(a few minutes), or start the server with `capsa serve --rules FILE`"
        )

    def seat(self, value: Any, players: Any, jokers: Any = None) -> Rules:
        """The Rules of a request's ``rules`` at a table of ``players`` (None: the
        ruleset's own): the preset's bigger table past its deck (``seated``), else a
        RulesError naming ``extra_suits``; then with ``jokers`` (None: the ruleset's own;
        ``add_jokers``)."""
        from solver.engine.seating import seated

        count = joker_count(jokers)  # a bad value is told before the ruleset is read
        rules = self.resolve(value)
        if players is not None:
            rules = seated(rules, whole(players, "players", MIN_PLAYERS, TABLE_MAX_PLAYERS))
        return add_jokers(rules, count)

    def describe(self, r: Rules) -> dict[str, Any]:
        """A ruleset for GET/POST /api/rules: ``max_players`` is the most it seats (a
        preset in ``BIG_TABLES`` its biggest table), ``decks`` the ``extra_suits`` of the
        deck dealt at each number of players (the page's card picker)."""
        most = most_players(r)
        return {
            "name": r.name,
            # what players call the game, for a preset (the presets menu: "十三水 (shisanshui)")
            "game": PRESET_GAMES[r.name] if PRESETS.get(r.name) == r else None,
            "summary": summary(r),
            "ready": self.ready(r),
            "players": r.players,
            "max_players": most,
            "decks": {str(n): seated_deck(r, n) for n in range(MIN_PLAYERS, most + 1)},
            "settings": [list(row) for row in describe_rules(r)],
            "rules": r.to_dict(),
            "naturals": [{**natural_names(n), "units": u} for n, u in r.naturals],
            # the jokers menu: the ruleset's own, the most it plays, or why it plays none
            "jokers": r.jokers,
            "max_jokers": 0 if jokers_refused(r) else MAX_JOKERS,
            "jokers_refused": jokers_refused(r),
        }


def most_players(r: Rules) -> int:
    """The most players ``r`` seats: its preset's biggest table, else its deck's hands."""
    from solver.engine.seating import BIG_TABLES

    table = BIG_TABLES.get(r.name)
    if table is not None and PRESETS.get(r.name) == r:
        return max(r.deck.most_players(), *table.extra_suits)
    return r.deck.most_players()


def seated_deck(r: Rules, players: int) -> str:
    """The deck code (``extra_suits`` and jokers) ``r`` deals at ``players`` (``seated``)."""
    from solver.engine.seating import seated

    return seated(r, players).deck_code


def train_with_jokers(r: Rules) -> str | None:
    """The command that trains the field tables of a table given its jokers by a request
    (``NAME-jokers-N``, ``shisanshui-5-jokers-N``), or None for another ruleset."""
    name, _, count = r.name.rpartition("-jokers-")
    if not r.jokers or count != str(r.jokers):
        return None
    base, _, players = name.rpartition("-")
    if name in PRESETS:
        return f"capsa train --rules {name} --jokers {count}"
    if base in PRESETS and players.isdigit():
        return f"capsa train --rules {base} --players {players} --jokers {count}"
    return f"capsa train --rules FILE --jokers {count}"


def joker_count(value: Any) -> int | None:
    """A request's ``jokers``: None (the ruleset's own), else 0, 1 or 2; RequestError
    (400, one line) for anything else."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise RequestError(f"jokers must be 0, 1 or 2 (jokers in the deck), got {quote(value)}")
    if not 0 <= value <= MAX_JOKERS:
        raise RequestError(f"jokers must be 0, 1 or 2 (jokers in the deck), got {int(value):,}")
    return int(value)


def jokers_refused(r: Rules) -> str | None:
    """Why ruleset ``r`` plays no jokers (docs/rules.md#jokers: a suit order, dealt
    royalties), in one line, or None when it may."""
    if r.suit_order is not None:
        return (
            f"ruleset {r.name!r} ranks the suits (suit_order {quote(r.suit_order)}) and capsa "
            "plays jokers only without a suit order: ask for 0 jokers, or another ruleset"
        )
    if r.royalties_dealt:
        return (
            f"ruleset {r.name!r} pays royalties on the dealt cards (royalties_dealt), which "
            "jokers leave undefined: ask for 0 jokers, or another ruleset"
        )
    return None


def add_jokers(r: Rules, count: int | None) -> Rules:
    """``r`` (seated) with ``count`` jokers (None: as it is): ``with_jokers`` (named
    ``NAME-jokers-N``); RequestError (400, one line) when ``r`` plays no jokers."""
    from solver.engine.seating import with_jokers

    if count is None or count == r.jokers:
        return r
    refused = jokers_refused(r)
    if refused is not None and count:
        raise RequestError(f"jokers: {refused}")
    return with_jokers(r, count)


def natural_names(name: str) -> dict[str, Any]:
    """How players call natural ``name`` (docs/rules.md#natural-names), for the page:
    ``{"name", "english", "local": [...]}``."""
    shown = NATURAL_NAMES_SHOWN[name]
    return {"name": name, "english": shown.english, "local": list(shown.local)}


# --------------------------------------------------------------------------- options


def _cards_text(value: Any, name: str) -> str:
    """Cards given as text or as a list of card strings."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(c, str) for c in value):
        return " ".join(value)
    raise InputError(f"{name} must be cards as text, e.g. 'As Kd Qh ...', got {_kind(value)}")


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _stakes(value: Any) -> list[float] | None:
    """``"100,10,10"`` (as ``--stakes``) or ``[100, 10, 10]``."""
    if value is None:
        return None
    if isinstance(value, str):
        return parse_stakes(value)
    if isinstance(value, list):
        for i, x in enumerate(value, start=1):
            if isinstance(x, bool) or not isinstance(x, numbers.Real):
                raise InputError(f"--stakes: stake {i} {quote(x)} is not a number")
        return [float(x) for x in value]
    raise InputError(f"stakes must be 'S1,S2,...' or a list of numbers, got {_kind(value)}")


def _against(value: Any) -> list[str] | None:
    """Opponent settings: the text of an ``--against`` file, or a list of settings."""
    if value is None:
        return None
    if isinstance(value, str):
        lines = (ln.strip() for ln in value.splitlines())
        return [ln for ln in lines if ln and not ln.startswith("#")]
    if isinstance(value, list) and all(isinstance(x, str | list) for x in value):
        return value
    raise InputError(
        f"against must be opponent settings 'front | middle | back', one a line or a list, "
        f"got {_kind(value)}"
    )


def _played(value: Any) -> str | list | None:
    """``"front | middle | back"``, ``[front, middle, back]``, ``{front, middle, back}``,
    or ``"declare"`` / ``"surrender"`` (``solve`` checks the words and the cards)."""
    if value is None or isinstance(value, str | list):
        return value
    if isinstance(value, Mapping):
        missing = [r for r in ("front", "middle", "back") if r not in value]
        if missing or len(value) != 3:
            raise InputError("played as an object has exactly the keys front, middle, back")
        return [_cards_text(value[r], f"played {r}") for r in ("front", "middle", "back")]
    raise InputError(f"played must be 'front | middle | back', got {_kind(value)}")


def _bounded(value: Any, name: str, most: int) -> None:
    """A whole number above the server's bound is refused (solve() checks the rest)."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and value > most:
        raise InputError(f"{name} must be at most {most:,} on this server, got {value:,}")


@dataclass(frozen=True)
class SolveRequest:
    """A checked POST /api/solve (or /api/check): ``solver.solve(hand, rules, options)``."""

    hand: str
    rules: Rules
    options: SolveOptions


def solve_options(
    body: Any, catalog: RulesCatalog, limits: Limits, *, need_played: bool = False
) -> SolveRequest:
    """The request of a POST /api/solve (or /api/check) body: its options built from the
    fields of ``SolveOptions`` (a key given as null takes the field's default) and checked,
    within the server's :class:`Limits`, before the ruleset is read."""
    opts = check_keys(body, SOLVE_KEYS, '{"hand": "As Kd Qh ..."}')
    if opts.get("hand") is None:
        raise InputError("hand is missing: give 13 cards, e.g. 'As Kd Qh ...'")
    if need_played and opts.get("played") is None:
        raise InputError("played is missing: give the setting as 'front | middle | back'")
    _bounded(opts.get("samples"), "samples", limits.samples)
    _bounded(opts.get("top"), "top", limits.top)
    jokers = joker_count(opts.get("jokers"))
    readers = {"against": _against, "stakes": _stakes, "played": _played, "opponents": _styles}
    given = {k: readers.get(k, _same)(v) for k, v in opts.items()
             if k not in ("hand", "rules", "jokers") and v is not None}  # fmt: skip
    options = SolveOptions(**given).check()
    rules = catalog.resolve(opts.get("rules"))
    if jokers is not None:  # the table seated as solve() seats it, then its jokers
        rules = add_jokers(_seated(rules, options), jokers)
    if options.against is None:  # given opponents are played exactly: no field tables
        catalog.require_ready(rules)
    return SolveRequest(_cards_text(opts["hand"], "hand"), rules, options)


def _seated(rules: Rules, options: SolveOptions) -> Rules:
    """``rules`` at the table ``solve()`` seats for these options (the players, or the
    opponents given and the player)."""
    from solver.engine.seating import seated

    against = options.against
    players = options.players or (len(against) + 1 if against is not None else 0)
    return seated(rules, players) if players else rules


def _same(value: Any) -> Any:
    return value


def _styles(value: Any) -> str:
    """``opponents`` of a request: styles only (``field``, ``greedy``, ``safe``), one
    for all or one per opponent (a comma-separated text or a list): the server never
    reads a model file a request names."""
    from solver.strategy.opposition.opponents import STYLES

    parts = value.split(",") if isinstance(value, str) else value
    if not isinstance(parts, list) or not parts:
        raise InputError(f"opponents must be a style or a list of styles, got {_kind(value)}")
    if len(parts) > MAX_OPPONENTS:  # every other seat
        raise InputError(f"opponents: {len(parts)} given, {MAX_OPPONENTS} at most (one a seat)")
    names = [p.strip() if isinstance(p, str) else p for p in parts]
    bad = [p for p in names if p not in STYLES]
    if bad:
        raise InputError(f"opponents: {quote(bad[0])} is not a style here; use {', '.join(STYLES)}")
    return ",".join(names)


def hand_natural(body: Any, catalog: RulesCatalog) -> dict[str, Any]:
    """POST /api/natural: what a hand may do besides being set, under a ruleset:
    ``{"hand", "rules", "natural": {name, english, local, units} or null, "surrender":
    cost or null}`` (the page offers Declare and Surrender from it)."""
    from evaluator import format_cards
    from solver.engine.setting_cards import hand_faces
    from solver.engine.settlement import find_natural

    opts = check_keys(body, NATURAL_KEYS, '{"hand": "As Kd Qh ...", "rules": "capsa"}')
    if opts.get("hand") is None:
        raise InputError("hand is missing: give 13 cards, e.g. 'As Kd Qh ...'")
    rules = catalog.seat(opts.get("rules"), opts.get("players"), opts.get("jokers"))
    hand = hand_faces(_cards_text(opts["hand"], "hand"), rules.deck_code)
    found = find_natural(hand, rules)
    natural = None
    if found is not None:
        natural = {**natural_names(found[2]), "units": dict(rules.naturals)[found[2]]}
    return {
        "hand": format_cards(sorted(hand.tolist(), reverse=True)),
        "rules": rules.name,
        "natural": natural,
        "surrender": rules.surrender_cost,
    }


def lane_of(body: Any) -> str:
    """The lane a solve or check body goes to before it is read: ``slow`` when it asks
    for a Monte Carlo answer (``is_slow``: the policy ``mc``, the default, without
    ``against``), else ``quick``. A body that is not an object is refused on the quick
    lane."""
    if not isinstance(body, Mapping):
        return "quick"
    policy = body.get("policy")
    mc = policy in (None, "mc") and body.get("against") is None
    return "slow" if mc else "quick"


def is_slow(request: SolveRequest) -> bool:
    """Whether a solve samples (Monte Carlo): it goes to the slow lane."""
    return request.options.mc


#: A seed of the server's deals: 0 to 2**64 - 1 (numpy's generators take larger ones,
#: but a seed past 64 bits deals nothing new, and a 4,300-digit one costs time to read).
MOST_SEED = 2**64


def check_seed(value: Any) -> int:
    """A request's ``seed`` (``/api/deal``, ``/api/table``): a whole number from 0 to
    2**64 - 1, or None for one picked here; ``InputError`` in one line otherwise (a
    huge number is named by its count of digits)."""
    if value is None:
        return secrets.randbelow(2**32)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        n = int(value)  # bounded below, with a huge number named by its count of digits
    else:
        n = whole(value, "seed", 0)  # the one check of a whole number: its error
    if not 0 <= n < MOST_SEED:
        digits = len(str(abs(n)))
        raise seed_out_of_range(f"{n:,}" if digits <= 24 else f"a {digits:,}-digit number")
    return n


def seed_out_of_range(shown: str) -> InputError:
    """The error of a seed past ``MOST_SEED`` (or below 0), ``shown`` as the message says it."""
    return InputError(f"seed must be from 0 to 2**64 - 1, got {shown}")


def deal(body: Any, catalog: RulesCatalog | None = None) -> dict[str, Any]:
    """A random hand for POST/GET /api/deal: ``{"hand", "seed"}`` (the seed deals it
    again); given ``rules``, ``players`` or ``jokers``, a hand of the deck that table deals
    (at five and six under shisanshui it may hold both copies of a card, with jokers an
    ``X``), and ``rules``, ``players``, ``jokers`` say which."""
    import numpy as np

    from evaluator import format_cards
    from solver.strategy.hands.deal import random_hands

    opts = check_keys(body, DEAL_KEYS, '{"seed": 7}')
    seed = check_seed(opts.get("seed"))
    if all(opts.get(k) is None for k in ("rules", "players", "jokers")):
        hand = random_hands(np.random.default_rng(seed), 1)[0]
        return {"hand": format_cards(hand[::-1]), "seed": seed}
    if catalog is None:
        raise RequestError("this server deals no hand of another ruleset")
    rules = catalog.seat(opts.get("rules"), opts.get("players"), opts.get("jokers"))
    hand = random_hands(np.random.default_rng(seed), 1, rules.deck)[0]
    players = rules.players if opts.get("players") is None else int(opts["players"])
    return {"hand": format_cards(hand[::-1]), "seed": seed, "rules": rules.name,
            "players": players, "jokers": rules.jokers}  # fmt: skip
