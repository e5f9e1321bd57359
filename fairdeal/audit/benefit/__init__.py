"""The auditor's model of benefit: what each deal gave each seat and the buyer's talon, measured the way the game
values it (``model``), folded block by block into mergeable integer sums (``fold``) and tested two-sided per actor
and beneficiary (``family``)."""
