"""Japanese: part-of-speech tables and token attributes (`pos`) and the
bunsetsu dependency rules on Docs (`bunsetsu`)."""
