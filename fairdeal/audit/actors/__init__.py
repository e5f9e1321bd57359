"""Every actor at the table as a suspect: the cutter's chosen depth against what it gave, and who cut."""
