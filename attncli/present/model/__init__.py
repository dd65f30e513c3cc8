"""A pretrained model's screens (attn selfattn --model, attn heads) and their words."""
