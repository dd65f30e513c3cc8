"""The backward pass on a terminal: its gradients, its steps and their words."""
