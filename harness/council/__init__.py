"""The subjects: the native three-stage council and the single-model baseline."""
