from fairdeal.cli import main

main()
