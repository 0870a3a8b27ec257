"""The read side: a fight's state rebuilt from its log (`projections.fold`), on the core's `engine.evolve`."""
