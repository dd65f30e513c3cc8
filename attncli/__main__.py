from attncli.cli.entry import main

main()
