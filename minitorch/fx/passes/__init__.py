"""Passes over FX graphs (``torch.fx.passes``): ``shape_prop.ShapeProp`` records each value's shape and dtype."""
