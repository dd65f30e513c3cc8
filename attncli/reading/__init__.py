"""Reading input: sources (files, stdin, .npy/.npz), values (JSON and option text → float64
arrays, with the position of any fault) and each operation's checked inputs."""
