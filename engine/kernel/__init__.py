"""The shared kernel every ruleset builds on: dice, the ladder, sheets, options, the fight's state, commands and their
namespace, history and rewind, what a Decider and a Reading are."""
