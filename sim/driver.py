"""The fight the simulator plays: a pace's script of commands, with each fighter's policy choosing.

Each pace is one loop here, one entry in `PACES`: rounds of pairs (F-PACE-2), turns, exchanges where
everyone acts at once and rounds in a ruleset's own turn order (Fate's FT-PACE and FT-INIT); the command of
each step (a directed attack, an exchange, a new round) and whose turn it is in a ruleset's own order are its
package's (`kernel.sim_rules`), asked, so the loops name no ruleset; the runner (sim.runner) gives the driver a session
to play through, and reads the fight it leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.decide import decider_of
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.engine.rulesets.fudge.ranked import SYSTEMS as RANKED
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.events.records import Recorded
from fudge_combat.sim.policies import Policy, foes
from fudge_combat.sim.rulesets import reading, view_of


class Session(Protocol):
    """What a fight is played through: the state it is at, and a command's step (decide, record, fold)."""

    state: FightState

    def execute(self, command: Any) -> tuple[FightState, list[Any]]: ...


def _joined_seq(who: Combatant) -> int:
    return who.joined_seq


class Driver:
    """Plays one fight: the pace's script of commands, with the policy's choices."""

    def __init__(self, session: Session, policies: dict[str, Policy], max_rounds: int) -> None:
        self.session = session
        self.policies = policies  # combatant key -> policy
        self.max_rounds = max_rounds
        self.exchanges: dict[tuple[str, str], cmd.Exchange] = {}  # the same pair's command (commands are frozen)

    def policy(self, who: Combatant) -> Policy:
        return self.policies[who.key]

    @property
    def state(self) -> FightState:
        return self.session.state

    def must(self, command: Any) -> list[Recorded]:
        _, records = self.session.execute(command)
        self.saves(records)
        return records

    def may(self, command: Any) -> bool:
        """A policy's command: one the rules refuse is not taken (nothing is written)."""
        try:
            self.must(command)
        except RuleError:
            return False
        return True

    def saves(self, records: Sequence[Recorded]) -> None:
        """After a blow: each fighter it marked may spend a point on it (the policy's `save`)."""
        view = view_of(self.state)
        for record in records:
            event = record.event
            if not isinstance(event, view.blows):
                continue
            who = self.state.find(event.combatant)
            if who is None or not view.in_force(self.state, who, record.seq):
                continue  # voided since
            spend = self.policy(who).save(self.state, who, event, record.seq)
            if spend is not None:
                self.may(spend)

    def over(self) -> bool:
        """The fight's own ruleset says when it is over (`Decider.is_terminal`): at most one side stands."""
        state = self.session.state
        return decider_of(state).is_terminal(state)

    def able(self) -> list[Combatant]:
        state = self.session.state
        read = reading(state)
        return sorted((c for key, c in state.combatants.items() if read[key][0]), key=_joined_seq)

    def declare(self, who: Combatant, defensive: bool | None = None) -> None:
        """The policy's declaration for `who`; `defensive` True/False: only a defensive/other one."""
        declaration = self.policy(who).declaration(self.state, who)
        if declaration is None:
            return
        if defensive is not None and defensive != (declaration.all_out == "defense" or (declaration.posture or 0) < 0):
            return
        self.may(cmd.Declare(combatant=who.name, declaration=declaration))

    # F-PACE-2: simultaneous rounds: one exchange per pair of fighters, or a melee against one (F-MULTI).
    def simultaneous(self) -> None:
        """Each round, fighters in join order pick a foe not yet engaged (the policy's choice); those left
        without one then pick any foe, who fights them all at once in a melee (F-MULTI-1: one roll compared
        with each foe's), up to `max_foes` (F-MULTI-6); beyond it a fighter waits for the next round."""
        while not self.over() and self.state.round < self.max_rounds:
            engaged: dict[str, list[Combatant]] = {}  # the lone fighter's key -> his foes this round
            taken: set[str] = set()
            left: list[Combatant] = []
            for who in self.able():
                if who.key in taken:
                    continue
                candidates = [c for c in foes(self.state, who) if c.key not in taken]
                target = self.policy(who).target(self.state, who, candidates) if candidates else None
                if target is None:
                    left.append(who)
                    continue
                taken |= {who.key, target.key}
                engaged[target.key] = [who]
            for who in left:
                candidates = [c for c in foes(self.state, who)
                              if c.key in engaged and len(engaged[c.key]) < self.state.options.max_foes]
                target = self.policy(who).target(self.state, who, candidates)
                if target is not None:
                    engaged[target.key].append(who)
            if not engaged:
                return
            for lone_key, against in engaged.items():
                lone = self.state.combatants[lone_key]
                read = reading(self.state)
                fighters = [self.state.combatants[w.key] for w in against if read[w.key][0]]
                if not read[lone_key][0] or not fighters:
                    continue
                for who in (*fighters, lone):
                    self.declare(self.state.combatants[who.key])
                if len(fighters) == 1:
                    pair = (fighters[0].name, lone.name)
                    exchange = self.exchanges.get(pair)
                    if exchange is None:
                        exchange = self.exchanges[pair] = cmd.Exchange(first=pair[0], second=pair[1])
                    self.must(exchange)
                else:
                    self.must(cmd.Melee(lone=lone.name, foes=tuple(w.name for w in fighters)))
                if self.over():
                    return

    # F-PACE-3: directed attacks in initiative order (phases or rolled initiative).
    def alternating(self) -> None:
        ranked = self.state.options.initiative in RANKED
        while not self.over() and self.state.round < self.max_rounds:
            if ranked:  # AI-WAIT, F-INIT-3: declared before the round
                for who in self.able():
                    self.declare(who)
            self.must(cmd.StartRound())
            if not ranked:  # F-MOD-8: a defense lasts the round; an attack is declared with its blow (`act`)
                for who in self.able():
                    self.declare(who, defensive=True)
            for who in self.able():
                for barter in self.policy(who).barters(self.state, who):
                    if not self.may(barter):
                        break
            if not self.turns(ranked):
                return

    def turns(self, ranked: bool) -> bool:
        """The round's turns; False when the fight is over (after the simultaneous slot ends, AI-INIT-2)."""
        ended_in: int | None = None
        while True:
            try:
                self.must(cmd.NextTurn())
            except RuleError:
                return ended_in is None
            turn = self.state.turn
            assert turn is not None
            if ended_in is not None and not (ranked and turn.phase == ended_in):
                return False
            self.act(self.state.combatants[turn.combatant], turn)
            if ended_in is None and self.over():
                if not ranked:
                    return False
                ended_in = turn.phase  # those in the same slot still strike

    def act(self, who: Combatant, turn: Any) -> None:
        """The actor's turn: an attack on the policy's target. Under PH-4 `structured` the declaring step
        declares that attack and the resolving step makes the attack declared for the phase."""
        if turn.step == "resolve":
            initiative = self.state.initiative.get(who.key)
            intent = next((i for i in (initiative.intents if initiative else ())
                           if i.phase == turn.phase and i.target), None)
            if intent is not None and intent.target is not None:
                self.declare(who, defensive=False)
                attack = view_of(self.state).attack
                self.may(attack(self.state, who, self.state.combatants[intent.target]))
            return
        target = self.policy(who).target(self.state, who, foes(self.state, who))
        if target is None:
            return
        if turn.step == "declare":
            self.may(cmd.DeclareIntent(combatant=who.name, what=f"attack {target.name}", target=target.name))
        else:
            if self.state.options.initiative not in RANKED:
                self.declare(who, defensive=False)
            self.may(view_of(self.state).attack(self.state, who, target))

    def all_at_once(self) -> None:
        """Exchanges (Fate's exchange pace, FT-PACE): everyone able picks a target and declares, and all roll
        at once, in the ruleset's exchange command, until one side stands."""
        exchange = view_of(self.state).exchange
        if exchange is None:
            raise InputError(f"the {self.state.options.ruleset} rules have no exchange the simulator can play: "
                             "simulate another pace")
        fought = 0
        while not self.over() and fought < self.max_rounds:
            state = self.state
            chosen = [(who, self.policy(who).target(state, who, foes(state, who)),
                       self.policy(who).declaration(state, who)) for who in self.able()]
            self.must(exchange(state, chosen))
            fought += 1

    def own_turns(self) -> None:
        """Rounds of attacks in the ruleset's own turn order (Fate's turn pace in Alertness order, FT-INIT); a
        fight without one (Fate under phase initiative) plays its turns as any other (`alternating`)."""
        view = view_of(self.state)
        new_round, next_actor = view.new_round, view.next_actor
        if new_round is None or next_actor is None or new_round(self.state) is None:
            self.alternating()
            return
        while not self.over() and self.state.round < self.max_rounds:
            self.must(new_round(self.state))
            while not self.over():
                actor = next_actor(self.state)
                if actor is None:
                    break
                target = self.policy(actor).target(self.state, actor, foes(self.state, actor))
                if target is None or not self.may(view.attack(self.state, actor, target)):
                    break  # a turn the rules refuse ends the round: the next one orders everyone again

    def run(self) -> None:
        options = self.state.options
        pace = options.pace
        if pace == "simultaneous" and options.initiative != "none":
            pace = "alternating"  # rolled initiative: turns in order
        play_pace = PACES.get(pace)
        if play_pace is None:
            raise InputError(f"the simulator plays {', '.join(PACES)} fights, not pace = {pace!r}")
        play_pace(self)


# pace option -> how a fight at that pace is played (a new pace adds one function here)
PACES: dict[str, Callable[[Driver], None]] = {"simultaneous": Driver.simultaneous, "alternating": Driver.alternating,
                                              "exchange": Driver.all_at_once, "turn": Driver.own_turns}
