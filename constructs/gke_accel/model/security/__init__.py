"""Security settings and guard rails: secrets encryption, Binary Authorization, production rules,
Terraform state backends across environment files."""
